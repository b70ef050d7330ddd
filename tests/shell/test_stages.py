"""Stage folders: reused per workspace, and those of a killed kernel swept safely at first use.

Real processes hold real ``flock`` locks; a stale stage is made by killing one (SIGKILL) mid-use."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernel.sandbox.safe_remove import remove_tree
from kernel.sandbox.stages import UNLOCKED_STALE_S, StagePool, sweep_stale

_HOLDER = """
import sys
from pathlib import Path
from kernel.sandbox.stages import StagePool
pool = StagePool()
stage = pool.acquire(Path(sys.argv[1]))
(stage.upper / "half-done.txt").write_text("a command's partial work")
print(stage.folder, flush=True)
sys.stdin.read()
"""


def _killed_holder(root: Path) -> Path:
    """A real process that made a stage beside ``root`` and was killed while using it."""
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER, str(root)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, cwd=repo, env={**os.environ, "PYTHONPATH": str(repo)})
    assert proc.stdout is not None
    folder = Path(proc.stdout.readline().decode().strip())
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert (folder / "upper" / "half-done.txt").exists()
    return folder


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def test_a_killed_kernels_stage_is_swept_at_first_use_and_a_live_one_is_not(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    stale = _killed_holder(root)
    live_pool = StagePool()
    other = tmp_path / "other"
    other.mkdir()
    live = live_pool.acquire(root)  # this process's first use: it sweeps, in the background
    live_pool.drain()
    assert not stale.exists()
    assert live.folder.exists() and live.upper.is_dir()
    second = StagePool()  # another user of the same folder (as another kernel would be): the live stage stays
    theirs = second.acquire(root)
    second.drain()
    assert live.folder.exists() and theirs.folder.exists() and theirs.folder != live.folder
    second.close()
    live_pool.close()
    assert not (tmp_path / ".agentdesk-overlay").exists()


def test_sweeping_never_follows_a_link_nor_leaves_its_folder(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    stale = _killed_holder(root)
    outside = tmp_path / "precious"
    (outside / "locked").mkdir(parents=True)
    (outside / "keep.txt").write_text("mine")
    os.chmod(outside / "locked", 0o000)
    parent = stale.parent
    os.symlink(outside, stale / "upper" / "link-to-outside")
    os.symlink(outside / "locked", stale / "upper" / "link-to-locked")
    os.symlink(outside, parent / "a-link-in-the-stage-folder")
    (stale / "upper" / "shut").mkdir()
    (stale / "upper" / "shut" / "f").write_text("x")
    os.chmod(stale / "upper" / "shut", 0o000)  # a command may leave a folder no one can read
    removed = sweep_stale(parent, time.time())
    assert sorted(removed) == sorted([stale.name, "a-link-in-the-stage-folder"])
    assert not stale.exists() and not os.path.lexists(parent / "a-link-in-the-stage-folder")
    assert (outside / "keep.txt").read_text() == "mine"
    assert os.stat(outside / "locked").st_mode & 0o777 == 0  # its mode was not touched through the link
    os.chmod(outside / "locked", 0o700)
    with pytest.raises(ValueError):
        sweep_stale(tmp_path, time.time())  # only ever a .agentdesk-overlay folder


def test_folders_without_a_lock_are_stale_only_when_old(tmp_path: Path) -> None:
    parent = tmp_path / ".agentdesk-overlay"
    parent.mkdir()
    young, old, building = parent / "probe-young", parent / "ws-old-format", parent / ".tmp-being-made"
    for folder in (young, old, building):
        (folder / "upper").mkdir(parents=True)
    now = time.time()
    past = now - UNLOCKED_STALE_S - 60
    os.utime(old, (past, past))
    assert sweep_stale(parent, now) == ["ws-old-format"]
    assert young.exists() and building.exists()
    assert sorted(sweep_stale(parent, now + UNLOCKED_STALE_S + 60)) == [".tmp-being-made", "probe-young"]


def test_remove_tree_unlocks_mode_000_folders_and_removes_links_as_links(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    (target / "t.txt").write_text("t")
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "f").write_text("f")
    os.symlink(target, tree / "a" / "ln")
    os.chmod(tree / "a", 0o000)
    assert remove_tree(tree)
    assert not tree.exists() and (target / "t.txt").read_text() == "t"
    assert remove_tree(tmp_path / "never-was")
