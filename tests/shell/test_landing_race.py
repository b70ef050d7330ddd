"""An overlay command's changes land as recorded or not at all: a folder swapped for a link between
recording and landing cannot redirect a write or a delete outside the workspace, and a command's
file altered after it was recorded does not land. The refusal is in the record (the result entry)."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path
from typing import Callable

import pytest

from ledger import FileChange, ToolResult

from .conftest import Env

pytestmark = pytest.mark.parametrize("capture", ["overlay"])


def _swap_for_link(folder: Path, to: Path) -> Callable[[Path], None]:
    """A hook that replaces ``folder`` by a link to ``to`` (what a racing program would do)."""
    def swap(_upper: Path) -> None:
        os.rename(folder, folder.with_name(folder.name + ".moved"))
        os.symlink(to, folder)
    return swap


def _changes(env: Env, cause: int) -> dict[str, FileChange]:
    return {os.path.relpath(e.path, env.root): e for e in env.ledger.caused_by(cause) if isinstance(e, FileChange)}


def _result(env: Env, cause: int) -> ToolResult:
    results = [e for e in env.ledger.caused_by(cause) if isinstance(e, ToolResult)]
    assert len(results) == 1
    return results[0]


def _run_recorded(env: Env, command: str, hook: Callable[[Path], None]):
    """Run ``command`` on the overlay with ``hook`` between recording and landing; record its result."""
    tool = env.tool(on_recorded=hook)
    out, ctx = asyncio.run(env.run({"command": command}, tool))
    assert ctx.cause is not None
    env.ledger.append(ToolResult(actor="a1", cause=ctx.cause, output=out.data, content=out.content))
    return out, ctx


def test_a_write_under_a_folder_swapped_for_a_link_does_not_land_outside(env: Env, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (env.root / "sub").mkdir()
    (env.root / "sub" / "old.txt").write_bytes(b"old\n")
    (env.root / "top.txt").write_bytes(b"top\n")
    out, ctx = _run_recorded(env, "echo new > sub/new.txt && echo changed > top.txt",
                             _swap_for_link(env.root / "sub", outside))
    assert os.listdir(outside) == []  # nothing was written through the link
    assert (env.root / "top.txt").read_bytes() == b"changed\n"  # the rest landed
    assert out.data["not_landed"] == [{"path": "sub/new.txt", "why": out.data["not_landed"][0]["why"]}]
    assert "link" in out.data["not_landed"][0]["why"]
    assert "NOT APPLIED sub/new.txt" in out.content
    changes = _changes(env, ctx.cause)
    assert set(changes) == {"sub/new.txt", "top.txt"}  # recorded before landing, as always
    assert _result(env, ctx.cause).output["not_landed"][0]["path"] == "sub/new.txt"  # the refusal is recorded too


def test_a_delete_under_a_folder_swapped_for_a_link_does_not_delete_outside(env: Env, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_bytes(b"keep me\n")
    (env.root / "sub").mkdir()
    (env.root / "sub" / "victim.txt").write_bytes(b"workspace copy\n")
    out, ctx = _run_recorded(env, "rm sub/victim.txt", _swap_for_link(env.root / "sub", outside))
    assert (outside / "victim.txt").read_bytes() == b"keep me\n"
    assert [d["path"] for d in out.data["not_landed"]] == ["sub/victim.txt"]
    assert (env.root / "sub.moved" / "victim.txt").read_bytes() == b"workspace copy\n"


def test_a_new_folder_swapped_for_a_link_is_not_filled_through_it(env: Env, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()

    def plant(_upper: Path) -> None:
        os.symlink(outside, env.root / "made")  # the folder the command made does not exist yet: a link takes its name

    out, _ctx = _run_recorded(env, "mkdir made && echo x > made/inner.txt", plant)
    assert os.listdir(outside) == []
    refused = {d["path"] for d in out.data["not_landed"]}
    assert refused == {"made", "made/inner.txt"}
    assert os.path.islink(env.root / "made")  # left as it was found


def test_what_lands_is_byte_for_byte_what_was_recorded(env: Env) -> None:
    (env.root / "a.txt").write_bytes(b"before\n")

    def tamper(upper: Path) -> None:
        with open(upper / "a.txt", "r+b") as fh:  # the same inode, other bytes, after the record read it
            fh.write(b"TAMPERED")

    out, ctx = _run_recorded(env, "echo recorded > a.txt && echo fine > b.txt", tamper)
    assert (env.root / "a.txt").read_bytes() == b"before\n"
    assert (env.root / "b.txt").read_bytes() == b"fine\n"
    assert [d["path"] for d in out.data["not_landed"]] == ["a.txt"]
    change = _changes(env, ctx.cause)["a.txt"]
    assert change.after == hashlib.sha256(b"recorded\n").hexdigest()  # the record holds the command's version
    assert not env.ledger.has_blob(hashlib.sha256(b"TAMPERED\n").hexdigest())


def test_a_file_changed_after_the_record_saw_it_is_not_overwritten(env: Env) -> None:
    (env.root / "a.txt").write_bytes(b"before\n")

    def edit(_upper: Path) -> None:
        (env.root / "a.txt").write_bytes(b"someone else's edit\n")

    out, _ctx = _run_recorded(env, "echo mine > a.txt", edit)
    assert (env.root / "a.txt").read_bytes() == b"someone else's edit\n"  # not lost under the command's version
    assert [d["path"] for d in out.data["not_landed"]] == ["a.txt"]


def test_landing_keeps_one_name_and_the_mtime(env: Env) -> None:
    out, _ctx = _run_recorded(env, "echo hi > t.txt && touch -d 2001-02-03 t.txt", lambda upper: None)
    st = os.stat(env.root / "t.txt")
    assert st.st_nlink == 1 and out.data["not_landed"] == []
    assert (env.root / "t.txt").read_bytes() == b"hi\n"
    assert st.st_mtime < 1e9 + 1e8  # 2001, as the command left it


def test_a_command_touching_more_folders_than_are_kept_open_lands_whole(env: Env) -> None:
    out, _ctx = _run_recorded(env, "for i in $(seq 150); do mkdir d$i && echo $i > d$i/f; done", lambda upper: None)
    assert out.data["not_landed"] == [] and len(out.data["changed"]) == 150
    assert all((env.root / f"d{i}" / "f").read_bytes() == f"{i}\n".encode() for i in range(1, 151))
