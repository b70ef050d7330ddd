"""Crashes: a writer killed with SIGKILL mid-stream, and the window between recording and landing.

The child prints one line per finished step; the test reads lines until
enough work is done and then kills it, so nothing here waits on a clock.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ledger import FileChange, Ledger, ToolCall, files

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from ledger import Ledger, ToolCall

    db, ws = sys.argv[1], Path(sys.argv[2])
    ledger = Ledger(db)
    for i in range(20_000):
        call = ledger.append(ToolCall(actor="child", tool="fs.write", scope="fs.write", input={"i": i}))
        target = ws / f"d{i % 5}" / f"f{i % 40}.txt"
        content = None if i % 11 == 10 else (f"{i}\\n" * (1 + i % 50)).encode()
        ledger.write_file(actor="child", path=target, content=content, cause=call.seq)
        print(i, flush=True)
""")


def test_sigkill_mid_stream_leaves_a_ledger_undo_can_use(tmp_path: Path) -> None:
    db, ws = tmp_path / "ledger.db", (tmp_path / "ws").resolve()
    ws.mkdir()
    with Ledger(db) as ledger:  # something that was there before the child, to check undo keeps it
        keep = ledger.write_file(actor="user", path=ws / "keep.txt", content=b"keep me", cause=None)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db), str(ws)], stdout=subprocess.PIPE,
                             env=env, text=True)
    assert child.stdout is not None
    done = 0
    for line in child.stdout:
        done = int(line) + 1
        if done >= 1500:
            break
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()
    assert done >= 1500, "the child stopped before doing enough work"

    raw = sqlite3.connect(db)
    assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    raw.close()
    with Ledger(db) as ledger:
        assert ledger.verify() == []
        touched = {c.path for c in ledger.file_changes(keep.seq) if isinstance(c, FileChange)}
        assert len(touched) == 40
        report = ledger.undo(keep.seq)
        assert report.conflicts == ()
        assert all(not Path(p).exists() for p in touched)
        assert (ws / "keep.txt").read_bytes() == b"keep me"
        # At most one temp file from the write the kill interrupted is left behind.
        debris = [p for p in ws.rglob("*") if p.is_file() and p.name != "keep.txt"]
        assert len(debris) <= 1 and all(p.name.endswith(".agentdesk") for p in debris)
        assert ledger.undo(keep.seq).steps == ()


class _Crash(BaseException):
    """The process dying between committing the entry and renaming the staged file into place."""


def test_change_recorded_but_never_landed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The crash window itself: the entry is committed, the disk never changed."""
    f = (tmp_path / "f.txt").resolve()
    ledger = Ledger(tmp_path / "ledger.db")
    ledger.write_file(actor="a", path=f, content=b"one", cause=None)
    point = ledger.append(ToolCall(actor="a", tool="fs.write", scope="fs.write")).seq
    ledger.write_file(actor="a", path=f, content=b"two", cause=point)

    def crash(*_args: object) -> None:
        raise _Crash

    with monkeypatch.context() as patched:
        patched.setattr(files, "rename", crash)
        for path, content in ((f, b"three"), (tmp_path / "new.txt", b"new")):
            with pytest.raises(_Crash):
                ledger.write_file(actor="a", path=path, content=content, cause=point)
    assert len(ledger.file_changes(point)) == 3  # both committed before the "crash"
    assert f.read_bytes() == b"two" and not (tmp_path / "new.txt").exists()
    report = ledger.undo(point)
    assert report.conflicts == ()
    assert f.read_bytes() == b"one" and not (tmp_path / "new.txt").exists()
    assert [s.landed for s in report.steps] == [False, False, True]
    ledger.close()
