"""Temporary files a killed write left are removed at the next start, and never shown or recorded."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from kernel.compose import build_kernel
from kernel.workspace.ignore import IgnoreRules
from kernel.config.settings import Settings
from kernel.tools.fs import FS_LIST, FS_SEARCH, FS_WRITE
from kernel.tools.fs.stale import sweep_temp_files
from ledger import Ledger
from ledger.files import is_temp_name

ROOT = Path(__file__).resolve().parents[2]
STAGE_THEN_DIE = """
import os, sys
from pathlib import Path
from ledger import files
files.stage(Path(sys.argv[1]), b"half of a write\\n")
os.kill(os.getpid(), 9)
"""


def _killed_mid_write(target: Path) -> Path:
    """Stage a write to ``target`` in a child process that is then SIGKILLed; the file it left."""
    done = subprocess.run([sys.executable, "-c", STAGE_THEN_DIE, str(target)], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, timeout=60)
    assert done.returncode == -signal.SIGKILL
    [left] = [p for p in target.parent.iterdir() if is_temp_name(p.name)]
    return left


def _age(path: Path, seconds: float) -> None:
    old = time.time() - seconds
    os.utime(path, (old, old), follow_symlinks=False)


def test_the_next_start_removes_what_a_killed_write_left(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    left = _killed_mid_write(ws / "sub" / "a.txt")
    _age(left, 3600)
    ledger = Ledger(tmp_path / "home" / "ledger.db")

    async def spawn() -> None:
        kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws)), providers=lambda n: None)
        try:
            kernel.agents.spawn()
        finally:
            await kernel.aclose()

    try:
        asyncio.run(spawn())
        assert list((ws / "sub").iterdir()) == []
        assert ledger.page(kind="fs.write") == []  # never recorded
    finally:
        ledger.close()


def test_only_stale_temporary_files_are_removed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    stale, fresh = ws / ".a.txt.0123456789ab.agentdesk", ws / ".b.txt.0123456789ac.agentdesk"
    mine, wrong_hex = ws / ".notes.agentdesk", ws / ".c.txt.0123456789AB.agentdesk"
    target = tmp_path / "outside.txt"
    target.write_text("keep\n")
    link = ws / ".d.txt.0123456789ad.agentdesk"
    link.symlink_to(target)
    for path in (stale, fresh, mine, wrong_hex):
        path.write_text("x")
    for path in (stale, mine, wrong_hex, link):
        _age(path, 3600)
    assert sweep_temp_files(ws) == 1
    assert not stale.exists() and fresh.exists() and mine.exists() and wrong_hex.exists()
    assert link.is_symlink() and target.read_text() == "keep\n"


def test_the_sweep_is_bounded(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    for i in range(30):
        (ws / f"f{i}").write_text("")
    deep = ws / "zz" / ".a.0123456789ab.agentdesk"
    deep.parent.mkdir()
    deep.write_text("x")
    _age(deep, 3600)
    assert sweep_temp_files(ws, max_entries=10) == 0 and deep.exists()
    assert sweep_temp_files(ws) == 1 and not deep.exists()


def test_temporary_files_are_never_listed_searched_created_or_snapshotted(env) -> None:
    env.put("a.txt", "needle\n")
    env.put(".a.txt.0123456789ab.agentdesk", "needle\n")
    assert env.run(FS_LIST).content == "a.txt  7 bytes"
    assert env.run(FS_SEARCH, pattern="needle").data["matches"] == 1
    message = env.fail(FS_WRITE, path=".x.0123456789ab.agentdesk", content="hi")
    assert "temporary files" in message
    assert IgnoreRules(env.root).ignores_file(".a.txt.0123456789ab.agentdesk")
