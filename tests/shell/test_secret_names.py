"""A shell command that makes, changes or deletes a file whose name holds a secret: on both capture
paths the change is recorded (and the file kept) under the name with the secret redacted, no column of
the ledger holds the secret, nothing the command did goes unrecorded, and undo works on that name."""

from __future__ import annotations

import asyncio
import hashlib
import os
import sqlite3

import pytest

from kernel.redaction import Redactor, SecretRegistry
from ledger import FileChange

from .conftest import Env

HELD = "Zq8vR2mXw7LpK4tN9sYb"
NAME = f"leak-{HELD}.txt"
SAFE = "leak-[REDACTED:held-secret].txt"

pytestmark = pytest.mark.parametrize("capture", ["overlay", "snapshots"])


@pytest.fixture
def held(env: Env) -> Env:
    env.ledger.redact_with(Redactor(SecretRegistry([("test", HELD)])))
    return env


def _raw(env: Env) -> str:
    with sqlite3.connect(env.ledger.path) as db:
        return "\n".join(str(tuple(r)) for r in db.execute("SELECT * FROM entries"))


def _changes(env: Env, cause: int) -> dict[str, FileChange]:
    return {os.path.relpath(e.path, env.root): e for e in env.ledger.caused_by(cause) if isinstance(e, FileChange)}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _run(env: Env, command: str):
    out, ctx = asyncio.run(env.run({"command": command}))
    assert ctx.cause is not None
    return out, ctx


def test_a_new_file_named_with_a_secret_is_kept_and_recorded_under_the_redacted_name(held: Env) -> None:
    out, ctx = _run(held, f"echo hi > {NAME} && mkdir d-{HELD} && echo x > d-{HELD}/f.txt && echo ok > ok.txt")
    assert out.data["exit_code"] == 0, out.content
    files = held.files()
    assert files == {SAFE: b"hi\n", "d-[REDACTED:held-secret]/f.txt": b"x\n", "ok.txt": b"ok\n"}
    assert not any(HELD in name for name in os.listdir(held.root))
    changes = _changes(held, ctx.cause)
    assert set(changes) == set(files)  # every change recorded
    assert changes[SAFE].before is None and changes[SAFE].after == _sha(b"hi\n")
    assert sorted(out.data["renamed"]) == sorted([SAFE, "d-[REDACTED:held-secret]/f.txt"])
    assert HELD not in _raw(held)
    report = held.ledger.undo(ctx.cause - 1)  # undo removes it under the name it was recorded with
    assert report.ok and held.files() == {}


def test_a_changed_file_named_with_a_secret_moves_to_the_redacted_name(held: Env) -> None:
    (held.root / NAME).write_bytes(b"old\n")
    asyncio.run(held.index.snapshot())  # it was there before (made by the user, never recorded: it cannot be)
    out, ctx = _run(held, f"echo new > {NAME}")
    assert held.files() == {SAFE: b"new\n"}, out.content
    change = _changes(held, ctx.cause)[SAFE]
    assert (change.before, change.after) == (_sha(b"old\n"), _sha(b"new\n"))
    assert HELD not in _raw(held)
    assert held.ledger.undo(ctx.cause - 1).ok
    assert held.files() == {SAFE: b"old\n"}  # the earlier bytes come back, under the name the record knows


def test_a_deleted_file_named_with_a_secret_is_recorded_as_deleted_under_the_redacted_name(held: Env) -> None:
    (held.root / NAME).write_bytes(b"gone soon\n")
    asyncio.run(held.index.snapshot())
    out, ctx = _run(held, f"rm {NAME} && echo ok > ok.txt")
    assert held.files() == {"ok.txt": b"ok\n"}, out.content
    change = _changes(held, ctx.cause)[SAFE]
    assert (change.before, change.after) == (_sha(b"gone soon\n"), None)
    assert HELD not in _raw(held)
    assert held.ledger.undo(ctx.cause - 1).ok
    assert held.files() == {SAFE: b"gone soon\n"}


def test_a_file_you_named_with_a_secret_is_left_alone_and_does_not_stop_commands(held: Env) -> None:
    asyncio.run(held.index.snapshot())  # the baseline: later differences are someone else's until a command runs
    (held.root / NAME).write_bytes(b"yours\n")
    out, ctx = _run(held, "echo ok > ok.txt")
    assert out.data["exit_code"] == 0, out.content
    assert held.files() == {NAME: b"yours\n", "ok.txt": b"ok\n"}
    assert set(_changes(held, ctx.cause)) == {"ok.txt"}
    assert HELD not in _raw(held)
