"""fs_write, fs_edit, fs_delete, fs_move: the change lands, is in the ledger first, and undoes."""

from __future__ import annotations

import hashlib

import pytest

from kernel.core.errors import ToolFailure
from kernel.tools.fs import FS_DELETE, FS_EDIT, FS_MOVE, FS_WRITE, plan_write
from ledger import FileChange


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def assert_change(env, change: FileChange, rel: str, before: bytes | None, after: bytes | None) -> None:
    """One fs.write entry: this agent, the resolved absolute path, this call as cause, blobs that match."""
    assert change.kind == "fs.write" and change.actor == "a1" and change.cause == env.cause
    assert change.path == str(env.root / rel)
    assert change.before == (None if before is None else sha(before))
    assert change.after == (None if after is None else sha(after))
    for digest, data in ((change.before, before), (change.after, after)):
        if digest is not None:
            assert env.ledger.blob(digest) == data


# ---- fs_write ------------------------------------------------------------------

def test_write_creates_the_file_and_its_folders(env) -> None:
    out = env.run(FS_WRITE, path="notes/deep/todo.md", content="buy milk\ncall Ann\n")
    assert out.content == "created notes/deep/todo.md (2 lines, 18 bytes)"
    [change] = env.changes()
    assert out.data == {"path": "notes/deep/todo.md", "bytes": 18, "lines": 2, "created": True, "changed": True,
                        "seqs": [change.seq]}
    assert (env.root / "notes/deep/todo.md").read_text() == "buy milk\ncall Ann\n"
    assert_change(env, change, "notes/deep/todo.md", None, b"buy milk\ncall Ann\n")
    assert change.seq > env.cause  # recorded after the call, caused by it


def test_overwrite_records_before_and_undo_restores(env) -> None:
    env.put("a.txt", "old\n")
    out = env.run(FS_WRITE, path="a.txt", content="né\n")
    assert out.content == "wrote a.txt (1 lines, 4 bytes)" and not out.data["created"]
    [change] = env.changes()
    assert_change(env, change, "a.txt", b"old\n", "né\n".encode())
    report = env.ledger.undo(env.cause)
    assert report.ok and report.reversed == (change.seq,)
    assert (env.root / "a.txt").read_text() == "old\n"


def test_undo_of_a_created_file_removes_it(env) -> None:
    env.run(FS_WRITE, path="new/x.txt", content="")
    assert (env.root / "new/x.txt").read_bytes() == b""
    env.ledger.undo(env.cause)
    assert not (env.root / "new/x.txt").exists()


def test_writing_the_same_content_records_nothing(env) -> None:
    env.put("a.txt", "same\n")
    out = env.run(FS_WRITE, path="a.txt", content="same\n")
    assert out.content == "a.txt already holds exactly this content (1 lines, 5 bytes); nothing was written"
    assert out.data["seqs"] == [] and env.all_changes() == []


def test_write_refuses_folders_and_files_in_the_way(env) -> None:
    env.put("dir/a.txt", "x")
    assert env.fail(FS_WRITE, path="dir", content="x") == "dir is a folder; give the path of a file"
    assert env.fail(FS_WRITE, path="dir/a.txt/b.txt", content="x") == (
        "cannot create dir/a.txt/b.txt: dir/a.txt is a file, not a folder")
    # A lone surrogate can arrive as a JSON escape; it is not text. (Called directly: the ledger
    # itself cannot yet record such an input in a tool entry.)
    with pytest.raises(ToolFailure, match="content is not valid Unicode text"):
        plan_write(env.ws, {"path": "s.txt", "content": "\ud800"})
    assert env.all_changes() == []


# ---- fs_edit -------------------------------------------------------------------

def test_edit_replaces_exactly_one_occurrence(env) -> None:
    env.put("app.py", "def f():\n    return 1\n\ndef g():\n    return 2\n")
    out = env.run(FS_EDIT, path="app.py", old="    return 2\n", new="    x = 2\n    return x\n")
    assert out.content == "edited app.py at line 5: replaced 1 line(s) with 2"
    after = b"def f():\n    return 1\n\ndef g():\n    x = 2\n    return x\n"
    assert (env.root / "app.py").read_bytes() == after
    [change] = env.changes()
    assert_change(env, change, "app.py", b"def f():\n    return 1\n\ndef g():\n    return 2\n", after)
    assert out.data == {"path": "app.py", "bytes": len(after), "line": 5, "removed_lines": 1, "added_lines": 2,
                        "seqs": [change.seq]}
    env.ledger.undo(env.cause)
    assert (env.root / "app.py").read_text().endswith("return 2\n")


def test_edit_with_no_match_says_zero(env) -> None:
    env.put("a.txt", "alpha\n  beta\n")
    text = env.fail(FS_EDIT, path="a.txt", old="gamma", new="x")
    assert text.startswith("the old text was not found in a.txt; 0 occurrences")
    assert "different whitespace" in env.fail(FS_EDIT, path="a.txt", old="beta  ", new="x")
    assert env.all_changes() == []


def test_edit_with_several_matches_says_how_many_and_where(env) -> None:
    env.put("a.txt", "x = 1\ny = 2\nx = 1\n")
    assert env.fail(FS_EDIT, path="a.txt", old="x = 1", new="x = 3") == (
        "the old text occurs 2 times in a.txt (lines 1, 3); include more of the surrounding text "
        "so that it matches exactly once")
    env.put("b.txt", "aaa")  # overlapping occurrences count: "aa" is at 0 and at 1
    assert "occurs 2 times" in env.fail(FS_EDIT, path="b.txt", old="aa", new="b")
    assert env.all_changes() == []


def test_edit_keeps_crlf_files_crlf(env) -> None:
    env.put("w.txt", b"one\r\ntwo\r\nthree\r\n")
    env.run(FS_EDIT, path="w.txt", old="one\ntwo\n", new="1\n2\n")
    assert (env.root / "w.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


def test_edit_refusals(env) -> None:
    env.put("bin.dat", b"\x00\x01abc")
    env.put("a.txt", "abc")
    (env.root / "dir").mkdir()
    assert "not UTF-8 text" in env.fail(FS_EDIT, path="bin.dat", old="abc", new="x")
    assert env.fail(FS_EDIT, path="a.txt", old="abc", new="abc") == (
        "old and new are the same text; there is nothing to change")
    assert env.fail(FS_EDIT, path="dir", old="a", new="b").startswith("dir is a folder")
    assert env.fail(FS_EDIT, path="nope.txt", old="a", new="b").startswith("nope.txt does not exist")


# ---- fs_delete -----------------------------------------------------------------

def test_delete_records_and_undo_restores(env) -> None:
    env.put("old/a.md", "bye\n")
    out = env.run(FS_DELETE, path="old/a.md")
    assert out.content == "deleted old/a.md (1 lines, 4 bytes)"
    assert not (env.root / "old/a.md").exists()
    [change] = env.changes()
    assert_change(env, change, "old/a.md", b"bye\n", None)
    assert out.data == {"path": "old/a.md", "bytes": 4, "seqs": [change.seq]}
    env.ledger.undo(env.cause)
    assert (env.root / "old/a.md").read_text() == "bye\n"


def test_delete_refuses_folders(env) -> None:
    env.put("old/a.md", "x")
    assert env.fail(FS_DELETE, path="old") == (
        "old is a folder; fs_delete works on single files only "
        "(folders are not deleted; delete the files inside one by one)")
    assert env.fail(FS_DELETE, path=".").startswith(". is a folder")
    assert (env.root / "old/a.md").exists() and env.all_changes() == []


# ---- fs_move -------------------------------------------------------------------

def test_move_is_two_entries_caused_by_the_call(env) -> None:
    env.put("a.md", "text\n")
    out = env.run(FS_MOVE, src="a.md", dst="archive/2024/a.md")
    assert out.content == "moved a.md to archive/2024/a.md (1 lines, 5 bytes)"
    assert not (env.root / "a.md").exists()
    assert (env.root / "archive/2024/a.md").read_text() == "text\n"
    created, deleted = env.changes()
    assert_change(env, created, "archive/2024/a.md", None, b"text\n")
    assert_change(env, deleted, "a.md", b"text\n", None)
    assert out.data == {"src": "a.md", "dst": "archive/2024/a.md", "bytes": 5, "seqs": [created.seq, deleted.seq]}
    report = env.ledger.undo(env.cause)
    assert report.ok and set(report.reversed) == {created.seq, deleted.seq}
    assert (env.root / "a.md").read_text() == "text\n" and not (env.root / "archive/2024/a.md").exists()


def test_move_refusals(env) -> None:
    env.put("a.md", "a")
    env.put("b.md", "b")
    env.put("dir/c.md", "c")
    assert env.fail(FS_MOVE, src="a.md", dst="b.md") == (
        "b.md already exists; fs_move does not overwrite (delete it first, or pick another name)")
    assert env.fail(FS_MOVE, src="a.md", dst="dir") == (
        "dir is an existing folder; give the full new path of the file, e.g. dir/a.md")
    assert env.fail(FS_MOVE, src="a.md", dst="./x/../a.md") == "a.md and ./x/../a.md are the same file; nothing to move"
    assert env.fail(FS_MOVE, src="dir", dst="dir2").startswith("dir is a folder; fs_move works on single files only")
    assert env.fail(FS_MOVE, src="zz.md", dst="y.md").startswith("zz.md does not exist")
    assert (env.root / "a.md").read_text() == "a" and (env.root / "b.md").read_text() == "b"
    assert env.all_changes() == []


def test_a_change_by_another_agent_after_the_call_is_a_conflict_not_overwritten(env) -> None:
    env.run(FS_WRITE, path="a.txt", content="mine\n")
    first = env.cause
    env.put("a.txt", "someone else\n")  # a program the ledger did not see
    report = env.ledger.undo(first)
    assert not report.ok and (env.root / "a.txt").read_text() == "someone else\n"
