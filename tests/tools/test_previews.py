"""Previews for the lease dialog: a one-line summary, the path, and the diff of what would land."""

from __future__ import annotations

import pytest

from kernel.tools.fs import FS_DELETE, FS_EDIT, FS_MOVE, FS_WRITE


def preview(tool, env, **args):
    assert tool.preview is not None
    result = tool.preview(env.ws, args)
    assert "\n" not in result.summary
    return result


def test_write_preview_of_a_new_file(env) -> None:
    p = preview(FS_WRITE, env, path="notes/todo.md", content="buy milk\n")
    assert p.summary == "create notes/todo.md (1 lines, 9 bytes)" and p.path == "notes/todo.md"
    assert p.diff == "--- /dev/null\n+++ b/notes/todo.md\n@@ -0,0 +1 @@\n+buy milk\n"
    assert not (env.root / "notes").exists()  # a preview changes nothing


def test_write_preview_of_an_overwrite(env) -> None:
    env.put("a.txt", "one\ntwo\n")
    p = preview(FS_WRITE, env, path="a.txt", content="one\n2\n")
    assert p.summary == "overwrite a.txt with 2 lines, 6 bytes (was 2 lines, 8 bytes)"
    assert "--- a/a.txt\n+++ b/a.txt\n" in p.diff and "-two\n+2\n" in p.diff
    assert preview(FS_WRITE, env, path="a.txt", content="one\ntwo\n").summary == (
        "write a.txt: no change (it already holds this content)")


def test_edit_preview_matches_what_the_edit_does(env) -> None:
    env.put("app.py", "a = 1\nb = 2\n")
    p = preview(FS_EDIT, env, path="app.py", old="b = 2", new="b = 3")
    assert p.summary == "edit app.py at line 2: replace 1 line(s) with 1" and p.path == "app.py"
    assert p.diff.endswith(" a = 1\n-b = 2\n+b = 3\n")
    env.run(FS_EDIT, path="app.py", old="b = 2", new="b = 3")
    assert env.ledger.diff(env.changes()[0].seq).splitlines()[2:] == p.diff.splitlines()[2:]


def test_delete_preview_shows_the_lines_going(env) -> None:
    env.put("a.txt", "x\ny")
    p = preview(FS_DELETE, env, path="a.txt")
    assert p.summary == "delete a.txt (2 lines, 3 bytes)"
    assert p.diff == "--- a/a.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n\\ No newline at end of file\n"


def test_move_preview_is_a_rename(env) -> None:
    env.put("a.md", "text\n")
    p = preview(FS_MOVE, env, src="a.md", dst="b/a.md")
    assert p.summary == "move a.md to b/a.md (1 lines, 5 bytes)" and p.path == "a.md"
    assert p.diff == "diff --git a/a.md b/b/a.md\nsimilarity index 100%\nrename from a.md\nrename to b/a.md\n"


def test_binary_and_long_diffs(env) -> None:
    env.put("img.bin", b"\x00\x01\x02")
    assert preview(FS_WRITE, env, path="img.bin", content="text").diff == (
        "Binary file img.bin changes (3 bytes -> 4 bytes)\n")
    env.put("long.txt", "".join(f"{n}\n" for n in range(2000)))
    diff = preview(FS_DELETE, env, path="long.txt").diff
    assert diff.count("\n") == 401 and diff.endswith("more diff lines not shown)\n")


@pytest.mark.parametrize("tool, args, reason", [
    (FS_WRITE, {"path": "../x", "content": ""}, "is outside the workspace"),
    (FS_EDIT, {"path": "a.txt", "old": "zzz", "new": "y"}, "0 occurrences"),
    (FS_DELETE, {"path": "missing.txt"}, "missing.txt does not exist"),
    (FS_MOVE, {"src": "a.txt", "dst": "a.txt"}, "same file"),
    (FS_WRITE, {"path": "a.txt"}, "cannot preview"),
])
def test_a_doomed_call_is_described_not_raised(env, tool, args, reason) -> None:
    env.put("a.txt", "abc\n")
    p = tool.preview(env.ws, args)
    assert reason in p.summary and p.diff is None
