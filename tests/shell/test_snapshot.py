"""The snapshot index: incremental, ignore-aware, persisted, and honest about outside changes."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from kernel.workspace.snapshot import RACY_NS, SnapshotIndex, diff
from ledger import FileChange, Ledger

from .conftest import Env


def test_unchanged_files_are_not_read_again(env: Env) -> None:
    # A zero racy window: files written just now count as settled, so reuse is observable at once.
    index = SnapshotIndex(env.root, env.ledger, racy_ns=0)
    for i in range(50):
        (env.root / f"f{i}.txt").write_text(f"file {i}")
    first, _ = index.scan()
    assert not any(state.racy for state in first.values())
    (env.root / "f7.txt").write_text("changed")
    second, _ = index.scan(reconcile=False)
    # Same state objects: the index did not open those files again.
    assert [rel for rel in second if second[rel] is not first[rel]] == ["f7.txt"]
    assert [c.rel for c in diff(first, second)] == ["f7.txt"]


def test_same_size_rewrite_is_caught_even_within_one_clock_tick(env: Env) -> None:
    path = env.root / "a.txt"
    path.write_text("aaaa")
    tree, _ = env.index.scan()
    assert tree["a.txt"].racy  # just written: not trusted by stat alone
    st = path.stat()
    path.write_text("bbbb")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime
    after, _ = env.index.scan(reconcile=False)
    assert [c.rel for c in diff(tree, after)] == ["a.txt"]


def test_contents_go_to_the_blob_store(env: Env) -> None:
    (env.root / "x.txt").write_bytes(b"keep me")
    tree, _ = env.index.scan()
    assert env.ledger.blob(tree["x.txt"].digest) == b"keep me"


def test_fifos_sockets_and_symlinks_are_skipped(env: Env) -> None:
    os.mkfifo(env.root / "pipe")
    os.symlink("/etc/passwd", env.root / "link")
    (env.root / "real.txt").write_text("r")
    tree, _ = asyncio.run(env.index.snapshot())
    assert set(tree) == {"real.txt"}


def test_default_ignores_and_venv_marker(env: Env) -> None:
    for rel in (".git/HEAD", ".venv/bin/python", "venv/x", "node_modules/a/b.js", "pkg/__pycache__/m.pyc",
                ".mypy_cache/x", ".pytest_cache/y", ".cache/z", "myenv/pyvenv.cfg", "myenv/lib/site.py",
                "src/main.py", "venvish/ok.txt"):
        path = env.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rel)
    tree, _ = env.index.scan()
    assert set(tree) == {"src/main.py", "venvish/ok.txt"}


def test_agentdeskignore_changes_take_effect(env: Env) -> None:
    (env.root / "a.log").write_text("log")
    (env.root / "a.txt").write_text("txt")
    assert set(env.index.scan()[0]) == {"a.log", "a.txt"}
    (env.root / ".agentdeskignore").write_text("*.log\n")
    assert set(env.index.scan()[0]) == {".agentdeskignore", "a.txt"}


def test_ledger_inside_the_workspace_is_not_snapshotted(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.db")
    index = SnapshotIndex(tmp_path, ledger)
    (tmp_path / "a.txt").write_text("a")
    tree, _ = index.scan()
    assert set(tree) == {"a.txt"}
    ledger.close()


def test_outside_changes_between_commands_are_recorded_as_outside(env: Env) -> None:
    (env.root / "doc.txt").write_text("v1")
    env.index.scan()
    (env.root / "doc.txt").write_text("v2 by an editor")
    (env.root / "new.txt").write_text("by another program")
    out, ctx = asyncio.run(env.run({"command": "cat doc.txt"}))
    outside = env.ledger.page(actor="outside")
    assert {os.path.basename(e.path) for e in outside} == {"doc.txt", "new.txt"}
    assert all(isinstance(e, FileChange) and e.seq < ctx.cause + 10 for e in outside)
    assert [e for e in env.ledger.caused_by(ctx.cause) if isinstance(e, FileChange)] == []


def test_the_kernels_own_writes_are_not_outside(env: Env) -> None:
    (env.root / "doc.txt").write_text("v1")
    env.index.scan()
    ctx = env.call({"command": "-"})
    ctx.write(env.root / "doc.txt", b"written by fs_write")
    _, recorded = env.index.scan()
    assert recorded == []


def test_persisted_index_survives_a_restart(env: Env, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    for i in range(5):
        (env.root / f"f{i}").write_text(str(i))
    first = SnapshotIndex(env.root, env.ledger, cache_dir=cache)
    tree, _ = first.scan()
    first.close()
    again = SnapshotIndex(env.root, env.ledger, cache_dir=cache)
    assert again.has_baseline and dict(again.tree) == dict(tree)
    (env.root / "f0").write_text("changed while closed")
    _, recorded = again.scan()
    assert [os.path.basename(e.path) for e in recorded] == ["f0"] and recorded[0].actor == "outside"
    again.close()
    other = Ledger(tmp_path / "other.db")
    fresh = SnapshotIndex(env.root, other, cache_dir=cache)  # another ledger: its blobs are not there
    assert not fresh.has_baseline
    fresh.close()
    other.close()


def test_racy_window_is_small() -> None:
    assert RACY_NS <= 100_000_000
