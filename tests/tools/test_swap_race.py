"""A folder swapped for a link to outside, again and again, never redirects a file tool.

A child process exchanges ``ws/d`` (a real folder) and ``ws/link`` (a link to
a folder outside the workspace) with ``renameat2(RENAME_EXCHANGE)`` in a tight
loop, as another agent's shell command could, while the real tools run
through the executor's path (``env.run``). Every call either lands inside
the workspace or is refused; nothing is written, staged or read outside.
Before the tools walked from the root folder's descriptor, fs_write landed
files (and temporary files) in the outside folder within a few hundred calls.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from kernel.core.errors import ToolFailure
from kernel.tools.fs import FS_LIST, FS_READ, FS_SEARCH, FS_WRITE

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux-only")

WRITES = 1500  # about 10 ms each, mostly fsync; the old code leaked within the first few hundred
READS = 900

SWAPPER = textwrap.dedent("""
    import ctypes, os, platform, sys
    libc = ctypes.CDLL(None, use_errno=True)
    a, b = (os.fsencode(p) for p in sys.argv[1:3])
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    if hasattr(libc, "renameat2"):
        swap = lambda: libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
    else:
        number = {"x86_64": 316, "aarch64": 276}[platform.machine()]
        swap = lambda: libc.syscall(number, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
    if swap() != 0:
        sys.exit("renameat2 failed: " + os.strerror(ctypes.get_errno()))
    os.nice(10)  # spin without crowding out the rest of the machine
    print("swapping", flush=True)
    while True:
        swap()
""")


@pytest.fixture
def swapping(env):
    outside = env.tmp / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET outside\n")
    env.put("d/secret.txt", "inside\n")
    (env.root / "link").symlink_to(outside)
    child = subprocess.Popen([sys.executable, "-c", SWAPPER, str(env.root / "d"), str(env.root / "link")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline() if child.stdout else ""
        if line.strip() != "swapping":
            pytest.skip(f"cannot swap folders here: {child.stderr.read() if child.stderr else ''}")
        yield env, outside, lambda: (child.kill(), child.wait())
    finally:
        child.kill()
        child.wait()


def _outcomes(env, tool, count: int, make) -> tuple[list[str], int]:
    """The outputs of ``count`` calls that succeeded, and how many were refused."""
    done, refused = [], 0
    for i in range(count):
        try:
            done.append(env.run(tool, **make(i)).content)
        except ToolFailure:
            refused += 1
    return done, refused


@pytest.mark.slow
def test_a_swapped_link_never_redirects_a_write(swapping) -> None:
    env, outside, stop = swapping
    done, refused = _outcomes(env, FS_WRITE, WRITES, lambda i: {"path": f"d/f{i}.txt", "content": f"{i}\n"})
    stop()  # a tree walked while it is being swapped can miss the real folder under either name
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]  # no file, no temp file
    assert (outside / "secret.txt").read_text() == "SECRET outside\n"
    assert done and refused  # the race really ran both ways
    inside = {p.name for p in env.root.rglob("f*.txt")}
    assert len(inside) == len(done)
    assert all(c.path.startswith(str(env.root) + "/") for c in env.all_changes())
    assert not [p for p in env.root.rglob("*.agentdesk")]


@pytest.mark.slow
def test_a_swapped_link_never_leaks_a_read(swapping) -> None:
    env, _outside, _stop = swapping
    reads, _ = _outcomes(env, FS_READ, READS, lambda i: {"path": "d/secret.txt"})
    lists, _ = _outcomes(env, FS_LIST, READS // 3, lambda i: {"path": "d"})
    found, _ = _outcomes(env, FS_SEARCH, READS // 3, lambda i: {"pattern": "SECRET|inside", "path": "d"})
    assert reads and all("SECRET" not in text for text in reads)
    assert all("SECRET" not in text for text in found)
    assert all("15 bytes" not in text for text in lists)  # the outside secret's size
