"""The outside watcher: other programs' edits become `outside` entries; the kernel's own do not."""

from __future__ import annotations

import asyncio
import os
import threading

from kernel.workspace.watch import OutsideWatcher
from ledger import FileChange

from .conftest import Env

WAIT = 30.0  # bounded waits on events, never sleeps


def _watcher(env: Env, **kwargs) -> OutsideWatcher:
    kwargs.setdefault("debounce_s", 3600.0)  # only flush() records, so the test decides when
    return OutsideWatcher(env.root, env.ledger, env.index, **kwargs)


def test_outside_edit_is_recorded_and_makes_undo_a_conflict(env: Env) -> None:
    seen: list[FileChange] = []
    with _watcher(env, on_entry=seen.append) as watcher:
        mark = env.ledger.last_seq()
        _, ctx = asyncio.run(env.run({"command": "echo 'agent draft' > notes.txt; echo other > other.txt"}))
        watcher.flush()  # whatever the observer saw of the command: already the agent's, not recorded again
        assert env.ledger.page(actor="outside") == []

        watcher.forget_seen()
        (env.root / "notes.txt").write_text("the user's own words\n")  # an editor saves
        assert watcher.wait_seen("notes.txt", WAIT)
        entries = watcher.flush()
        assert [(e.actor, os.path.basename(e.path)) for e in entries] == [("outside", "notes.txt")]
        agent_write = next(e for e in env.ledger.caused_by(ctx.cause)
                           if isinstance(e, FileChange) and e.path.endswith("notes.txt"))
        assert entries[0].before == agent_write.after and entries[0].after is not None
        assert env.ledger.blob(entries[0].after) == b"the user's own words\n"
        assert seen == entries

    report = env.ledger.undo(mark)
    assert [(os.path.basename(c.path), c.changed_by) for c in report.conflicts] == [("notes.txt", "outside")]
    assert "outside" in report.conflicts[0].reason
    assert (env.root / "notes.txt").read_text() == "the user's own words\n"  # never overwritten
    assert not (env.root / "other.txt").exists()  # the rest was undone


def test_the_kernels_own_writes_are_not_recorded_again(env: Env) -> None:
    with _watcher(env) as watcher:
        ctx = env.call({"command": "-"})
        ctx.write(env.root / "tool.txt", b"by fs_write")
        assert watcher.wait_seen("tool.txt", WAIT)
        assert watcher.flush() == []
        watcher.forget_seen()
        ctx.write(env.root / "tool.txt", None)
        assert watcher.wait_seen("tool.txt", WAIT)
        assert watcher.flush() == []
    assert env.ledger.page(actor="outside") == []


def test_undo_is_not_recorded_as_outside(env: Env) -> None:
    with _watcher(env) as watcher:
        mark = env.ledger.last_seq()
        asyncio.run(env.run({"command": "echo x > u.txt"}))
        assert env.ledger.undo(mark).ok
        assert watcher.wait_seen("u.txt", WAIT)
        assert watcher.flush() == []
    assert env.ledger.page(actor="outside") == []


def test_creation_deletion_and_folder_moves_outside(env: Env) -> None:
    (env.root / "keep").mkdir()
    (env.root / "keep" / "a.txt").write_text("a")
    (env.root / "doomed.txt").write_text("d")
    with _watcher(env) as watcher:
        (env.root / "doomed.txt").unlink()
        (env.root / "keep").rename(env.root / "moved")
        (env.root / ".git").mkdir()
        (env.root / ".git" / "index").write_text("ignored")
        (env.root / "fresh.txt").write_text("f")
        assert watcher.wait_seen("fresh.txt", WAIT) and watcher.wait_seen("moved", WAIT)
        watcher.flush()
    changes = {(os.path.relpath(e.path, env.root), e.before is None, e.after is None)
               for e in env.ledger.page(actor="outside")}
    assert changes == {("doomed.txt", False, True), ("keep/a.txt", False, True), ("moved/a.txt", True, False),
                       ("fresh.txt", True, False)}


def test_debounce_timer_records_without_flush(env: Env) -> None:
    got = threading.Event()
    entries: list[FileChange] = []

    def on_entry(entry: FileChange) -> None:
        entries.append(entry)
        got.set()

    with _watcher(env, debounce_s=0.05, on_entry=on_entry):
        with open(env.root / "burst.txt", "w") as fh:  # a burst of writes to one path...
            for i in range(20):
                fh.write(f"line {i}\n")
                fh.flush()
        assert got.wait(WAIT)
    assert [os.path.basename(e.path) for e in entries] == ["burst.txt"]  # ...is one entry
    assert env.ledger.blob(entries[0].after).count(b"\n") == 20
