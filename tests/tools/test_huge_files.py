"""Large files: what undo cannot keep is never replaced; what it can is kept in chunks.

A file over ``blob_max_bytes`` cannot be kept for undo, so deleting,
overwriting or moving it is refused with the reason and the advice to ask
the user; fs_edit stops at ``edit_max_bytes``. Files between the inline size
and the limit are kept straight from their descriptor (hashed and compressed
in chunks) and undo restores them byte for byte. Memory is measured in
benchmarks/huge_file_bench.py, not here.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace

import pytest

from kernel.tools.descriptor import ToolLimits
from kernel.tools.fs import FS_DELETE, FS_EDIT, FS_MOVE, FS_READ, FS_WRITE
from kernel.tools.fs.writing import INLINE_MAX
from ledger import blobs

TOO_LARGE = "too large to undo: ask the user"


def noisy(size: int) -> bytes:
    """Bytes that compress a little, like real files: random blocks with text between them."""
    block = os.urandom(4096) + b"line of text\n" * 300
    return (block * (size // len(block) + 1))[:size]


@pytest.fixture
def small_limits(env):
    env.limits = ToolLimits(blob_max_bytes=4096, edit_max_bytes=2048)
    return env


@pytest.mark.parametrize("tool, args, verb", [
    (FS_DELETE, {"path": "big.txt"}, "delete"),
    (FS_WRITE, {"path": "big.txt", "content": "small now\n"}, "overwrite"),
    (FS_MOVE, {"src": "big.txt", "dst": "moved.txt"}, "move"),
    (FS_EDIT, {"path": "big.txt", "old": "line 1\n", "new": "LINE 1\n"}, "edit"),
])
def test_a_file_too_large_to_keep_is_never_replaced(small_limits, tool, args, verb) -> None:
    env = small_limits
    data = b"".join(b"line %d\n" % i for i in range(1000))
    env.put("big.txt", data)
    message = env.fail(tool, **args)
    assert f"big.txt is {TOO_LARGE} to {verb} it" in message and "4,096" in message
    assert (env.root / "big.txt").read_bytes() == data
    assert not (env.root / "moved.txt").exists()
    assert env.all_changes() == []


def test_fs_edit_stops_at_its_own_limit(small_limits) -> None:
    env = small_limits
    data = b"x" * 3000 + b"\nneedle\n"
    env.put("mid.txt", data)
    message = env.fail(FS_EDIT, path="mid.txt", old="needle", new="pin")
    assert "too large for fs_edit" in message and "2,048" in message
    assert (env.root / "mid.txt").read_bytes() == data and env.all_changes() == []


def test_the_limit_is_the_agents_own_setting(small_limits) -> None:
    env = small_limits
    env.put("big.txt", b"y" * 5000)
    env.limits = replace(env.limits, blob_max_bytes=8192)
    env.run(FS_DELETE, path="big.txt")
    assert not (env.root / "big.txt").exists()
    env.ledger.undo(env.cause - 1)
    assert (env.root / "big.txt").read_bytes() == b"y" * 5000


def test_a_large_file_is_kept_in_chunks_and_undo_restores_it(env) -> None:
    data = noisy(INLINE_MAX + 3 * blobs.CHUNK + 123)
    env.put("data.bin", data)
    out = env.run(FS_DELETE, path="data.bin")
    assert out.data["bytes"] == len(data) and not (env.root / "data.bin").exists()
    [change] = env.changes()
    assert change.before == hashlib.sha256(data).hexdigest() and change.stored
    stored = env.ledger.connection.execute("SELECT size, codec, length(data) FROM blobs WHERE hash = ?",
                                           (change.before,)).fetchone()
    assert stored[0] == len(data) and stored[1] == "zlib" and stored[2] < len(data)
    assert env.ledger.verify() == []
    assert env.ledger.undo(env.cause - 1).ok
    assert (env.root / "data.bin").read_bytes() == data


def test_a_large_file_moves_and_overwrites_and_undoes(env) -> None:
    data = noisy(INLINE_MAX + blobs.CHUNK + 7)
    os.chmod(env.put("a.bin", data), 0o640)
    start = env.ledger.last_seq()
    out = env.run(FS_MOVE, src="a.bin", dst="sub/b.bin")
    assert out.data["bytes"] == len(data) and (env.root / "sub/b.bin").read_bytes() == data
    assert not (env.root / "a.bin").exists()
    env.run(FS_WRITE, path="sub/b.bin", content="replaced\n")
    assert env.run(FS_READ, path="sub/b.bin").content == "replaced\n"
    assert env.ledger.undo(start).ok
    assert (env.root / "a.bin").read_bytes() == data and not (env.root / "sub/b.bin").exists()
    assert (env.root / "a.bin").stat().st_mode & 0o777 == 0o640


def test_the_same_large_contents_are_stored_once(env) -> None:
    data = noisy(INLINE_MAX + 10)
    env.put("one.bin", data)
    env.put("two.bin", data)
    env.run(FS_DELETE, path="one.bin")
    env.run(FS_DELETE, path="two.bin")
    count = env.ledger.connection.execute("SELECT COUNT(*) FROM blobs WHERE size = ?", (len(data),)).fetchone()[0]
    assert count == 1
