"""The kernel reaps every orphan it inherits, and never a child someone else is waiting for.

The kernel is a child subreaper (``peers.become_subreaper``): whatever a process below it leaves
behind when it dies (an MCP stdio server that double-forks, a command's background job, a helper's
``sh -c``) is re-parented to the kernel, not to init. Nobody in the kernel started those processes,
so nobody waits for them: each became a zombie of the kernel when it ended (issue 23: one per
shell command until bwrap's init was made the command itself).

Here every child of the kernel is reaped when it ends (SIGCHLD, then a scan of the kernel's
children in /proc), except the ones this process started itself: those have a waiter already
(asyncio's child watcher, ``subprocess.Popen.wait``), and reaping them first would steal their exit
status (asyncio then reports 255 and logs "Unknown child process"). Every child this process
starts goes through ``subprocess.Popen`` (asyncio's subprocesses too; nothing in the kernel calls
``os.fork`` or ``posix_spawn``), so ``install`` wraps ``Popen._execute_child`` to record each pid
under a lock the scan also holds: a child is "ours" while its ``Popen`` lives and has no exit
status yet, and a pid cannot be seen by the scan between its fork and its record.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import weakref
from pathlib import Path
from typing import Any, Callable

_LOCK = threading.Lock()  # held by a Popen from its fork to its record, and by a scan
_OURS: dict[int, "weakref.ref[subprocess.Popen[Any]]"] = {}
_installed = False


def install() -> None:
    """Record every child this process starts from now on (idempotent)."""
    global _installed
    if _installed:
        return
    start: Callable[..., None] = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def recorded(self: "subprocess.Popen[Any]", *args: Any, **kwargs: Any) -> None:
        with _LOCK:
            start(self, *args, **kwargs)
            _OURS[self.pid] = weakref.ref(self)

    subprocess.Popen._execute_child = recorded  # type: ignore[attr-defined]
    _installed = True


def ours(pid: int) -> bool:
    """Whether ``pid`` is a child this process started and somebody may still wait for."""
    ref = _OURS.get(pid)
    popen = ref() if ref is not None else None
    if popen is None or popen.returncode is not None:
        _OURS.pop(pid, None)
        return False
    return True


def reap(proc: Path = Path("/proc")) -> list[int]:
    """Reap every ended child of this process that it did not start; the pids reaped."""
    reaped: list[int] = []
    with _LOCK:
        for pid in list(_OURS):  # forget the children that were waited for (or whose Popen is gone)
            ours(pid)
        for pid in children(os.getpid(), proc):
            if _state(pid, proc) != "Z" or ours(pid):
                continue
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:  # somebody else was quicker
                continue
            if done == pid:
                reaped.append(pid)
    return reaped


def children(pid: int, proc: Path = Path("/proc")) -> list[int]:
    """The pids whose parent is ``pid`` (every thread's ``children`` list, Linux 3.5+)."""
    out: list[int] = []
    try:
        tasks = os.listdir(proc / str(pid) / "task")
    except OSError:
        return out
    for task in tasks:
        try:
            out += [int(child) for child in (proc / str(pid) / "task" / task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return out


def _state(pid: int, proc: Path) -> str | None:
    try:
        stat = (proc / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 1:].split()
    return fields[0].decode("ascii", "replace") if fields else None


def reap_on_sigchld(loop: Any) -> None:
    """Reap on every SIGCHLD the event ``loop`` receives, and once now (orphans adopted before this)."""
    install()
    loop.add_signal_handler(signal.SIGCHLD, reap)
    reap()
