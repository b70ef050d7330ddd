"""Who may talk to the kernel: never a process the kernel itself started.

The socket is owner-only and checks the peer's uid, but every program the
kernel starts runs as the same user: an MCP stdio server, a hook, a shell
command run without the sandbox (``allow_unsandboxed_shell``). Any of them
could connect, say hello and grant itself ``*``. So on accept the server asks
the kernel (``SO_PEERCRED``) for the peer's pid and walks ``/proc/PID/stat``'s
parent links up to pid 1: a peer below the kernel is refused. The kernel is
made a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``) at start, so a
double-forked orphan is re-parented to the kernel, not to init, and stays
its descendant. A peer that vanished before the walk (or whose pid cannot be
read, or is 0: it lives in a pid namespace the kernel cannot see into) is
refused too: it cannot be told apart from a descendant. The desktop and
``agentdesk ask`` start or attach to the kernel from outside
(``kernel.service.spawn`` starts it detached, as their child), so they are
never below it. The kernel's own pid (an in-process client) is served. A
kernel that is itself pid 1 (the first process of a container) has every
process below it and refuses them all: run it under an init
(``docker run --init``).

Limits: this is a check on who connects, not a sandbox. A descendant that has
another, unrelated process connect for it (``systemd-run --user``, cron, a
login script) is outside the walk; an unsandboxed command can do anything the
user can, which is why each one is confirmed (``kernel.tools.shell``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>
MAX_DEPTH = 4096             # parent links walked before giving up (a loop would be a kernel bug; refuse)


@dataclass(frozen=True)
class PeerRefused:
    """Why a connection is not served (``pid``: the peer's, as the socket reported it)."""

    pid: int | None
    reason: str


def become_subreaper() -> bool:
    """Make this process the reaper of its descendants' orphans; False where Linux or libc says no."""
    import ctypes  # (~5 ms to import: after the kernel's socket listens, not before)

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def parent_of(pid: int, proc: Path = Path("/proc")) -> int | None:
    """The parent pid of ``pid``, or None when it is gone or unreadable."""
    try:  # os.open/os.read, not Path.read_bytes: less than half the cost per step (benchmarks/peer_bench.py)
        fd = os.open(f"{proc}/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        stat = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'
    fields = stat[stat.rfind(b")") + 1:].split()
    if len(fields) < 2 or fields[0] in (b"Z", b"X"):  # a zombie or a dead task: gone already
        return None
    try:
        return int(fields[1])
    except ValueError:
        return None


def judge(pid: int | None, kernel_pid: int | None = None, proc: Path = Path("/proc")) -> PeerRefused | None:
    """None when the peer ``pid`` may be served; otherwise why not."""
    kernel_pid = os.getpid() if kernel_pid is None else kernel_pid
    if pid is None:
        return None  # no SO_PEERCRED on this platform: nothing to check (Linux always has it)
    if pid <= 0:
        return PeerRefused(pid, "the connecting process is not visible to the kernel (another pid namespace)")
    if pid == kernel_pid:
        return None
    current = pid
    for _ in range(MAX_DEPTH):
        parent = parent_of(current, proc)
        if parent is None:
            return PeerRefused(pid, f"the connecting process (pid {pid}) or one of its parents ended before it "
                                    "could be checked")
        if parent == kernel_pid:
            return PeerRefused(pid, f"the connecting process (pid {pid}) was started by the kernel (an MCP "
                                    "server, a hook or a command): the kernel does not serve its own children")
        if parent <= 1:
            return None
        current = parent
    return PeerRefused(pid, f"the parents of pid {pid} could not be followed to the first process")
