"""Every file tool stays inside the workspace: `..`, absolute paths and links out are refused."""

from __future__ import annotations

import pytest

from kernel.tools.fs import FS_DELETE, FS_EDIT, FS_LIST, FS_MOVE, FS_READ, FS_SEARCH, FS_WRITE

ESCAPES = ["../outside/secret.txt", "a/../../outside/secret.txt", "/etc/passwd", "{tmp}/outside/secret.txt",
           "link_file", "link_dir/secret.txt", "~/x"]

# How each tool is called with a path under test (the other fields are harmless).
CALLS = {
    "fs_read": (FS_READ, lambda p: {"path": p}),
    "fs_list": (FS_LIST, lambda p: {"path": p}),
    "fs_search": (FS_SEARCH, lambda p: {"pattern": "secret", "path": p}),
    "fs_write": (FS_WRITE, lambda p: {"path": p, "content": "pwned"}),
    "fs_edit": (FS_EDIT, lambda p: {"path": p, "old": "secret", "new": "pwned"}),
    "fs_delete": (FS_DELETE, lambda p: {"path": p}),
    "fs_move_src": (FS_MOVE, lambda p: {"src": p, "dst": "stolen.txt"}),
    "fs_move_dst": (FS_MOVE, lambda p: {"src": "inside.txt", "dst": p}),
}


@pytest.fixture
def jail(env):
    outside = env.tmp / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    env.put("inside.txt", "inside\n")
    (env.root / "link_file").symlink_to(outside / "secret.txt")
    (env.root / "link_dir").symlink_to(outside)
    return env


@pytest.mark.parametrize("call", CALLS, ids=str)
@pytest.mark.parametrize("escape", ESCAPES)
def test_escapes_are_refused_and_nothing_changes(jail, call: str, escape: str) -> None:
    tool, make = CALLS[call]
    path = escape.format(tmp=jail.tmp)
    message = jail.fail(tool, **make(path))
    assert "is outside the workspace" in message and "use a path inside it" in message
    assert (jail.tmp / "outside" / "secret.txt").read_text() == "secret\n"
    assert (jail.root / "inside.txt").read_text() == "inside\n"
    assert not (jail.root / "stolen.txt").exists()
    assert jail.all_changes() == []


def test_dot_dot_that_stays_inside_is_fine(env) -> None:
    env.run(FS_WRITE, path="a/../b.txt", content="hi\n")
    assert (env.root / "b.txt").read_text() == "hi\n" and not (env.root / "a").exists()
    assert env.run(FS_READ, path="x/y/../../b.txt").content == "hi\n"
    env.run(FS_MOVE, src="./b.txt", dst="a/../c.txt")
    assert (env.root / "c.txt").exists()
    assert env.run(FS_LIST, path="sub/..").content == "c.txt  3 bytes"


def test_an_absolute_path_inside_the_workspace_is_fine(env) -> None:
    env.put("a.txt", "hi\n")
    out = env.run(FS_READ, path=str(env.root / "a.txt"))
    assert out.content == "hi\n" and out.data["path"] == "a.txt"


def test_a_link_that_stays_inside_is_followed(env) -> None:
    env.put("real/a.txt", "hi\n")
    (env.root / "alias").symlink_to(env.root / "real")
    assert env.run(FS_READ, path="alias/a.txt").data["path"] == "real/a.txt"
    env.run(FS_EDIT, path="alias/a.txt", old="hi", new="ho")
    assert env.changes()[0].path == str(env.root / "real/a.txt")  # the ledger holds the resolved path
