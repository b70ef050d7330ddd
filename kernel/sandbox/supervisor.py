"""One sandboxed command as a supervised process tree: started in a session of its own (in a pids
cgroup of its own where one can be made), its output pumped to a sink, stopped at its timeout or on
cancel, and reaped whole.

bubblewrap reports the host pid of the sandbox's init (the command itself, run as the
namespace's pid 1: ``--as-pid-1``, see ``bwrap``) on ``--info-fd``; the
supervisor opens a pidfd on it. However the command ends (it exits, its time
is up, or the caller is cancelled because the agent was killed), the whole
tree goes at once: SIGKILL to the command's process group and to the
sandbox's init, whose PID namespace dies with it, which also ends what the
command left running in the background. Then it waits for bubblewrap, for
every process of the namespace (the init's pidfd turns readable) and for the
output pipe to close, shielded from the cancellation, so nothing outlives the
call. Without a sandbox (``allow_unsandboxed_shell``) the process group is
all there is to kill.

What the command may see and use is planned elsewhere (``bwrap``, ``view``,
``limits``); what its output and changes mean is the shell tool's
(``kernel.tools.shell``). This module only runs and stops processes.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Awaitable, Callable, Mapping, Protocol

from .limits import pids_cgroup

DRAIN_S = 5.0  # after the tree is killed, how long the pipe may take to close


class OutputSink(Protocol):
    """Where the command's output goes as it arrives (stdout and stderr, interleaved)."""

    def feed(self, chunk: bytes) -> None: ...


class NotStarted(Exception):
    """The command could not be started (its ``__cause__`` is the ``OSError``)."""


class NotLimited(Exception):
    """The command's process limit (its pids cgroup) could not be set up (``__cause__``: the ``OSError``)."""


@dataclass(frozen=True)
class Ended:
    """How a supervised command ended: its exit code, or None when it was stopped at its timeout."""

    exit_code: int | None
    timed_out: bool


async def supervise(argv_for: Callable[[int | None, Path | None], list[str]], *, sandboxed: bool, cwd: Path,
                    env: Mapping[str, str], timeout: float, sleep: Callable[[float], Awaitable[object]],
                    output: OutputSink, cgroup: Path | None = None, max_processes: int = 0) -> Ended:
    """Run the command in its own session; stop its whole tree at the timeout or on cancel.

    ``argv_for(fd, procs)`` is the command line, given the write end of bwrap's ``--info-fd`` pipe
    when ``sandboxed`` (else None) and the ``cgroup.procs`` file of a fresh pids cgroup under
    ``cgroup`` capped at ``max_processes`` (None without ``cgroup``: then the command line
    carries whatever limit this system allows, ``kernel.sandbox.limits``). ``sleep`` is the clock's (the timeout counts from the call).
    A ``CancelledError`` is re-raised once the tree is gone; the cgroup is removed after that."""
    with ExitStack() as stack:
        procs: Path | None = None
        if cgroup is not None:
            try:
                procs = stack.enter_context(pids_cgroup(cgroup, max_processes))
            except OSError as exc:
                raise NotLimited(str(exc)) from exc
        return await _tree(lambda fd: argv_for(fd, procs), sandboxed=sandboxed, cwd=cwd, env=env,
                           timeout=timeout, sleep=sleep, output=output)


async def _tree(argv_for: Callable[[int | None], list[str]], *, sandboxed: bool, cwd: Path,
                env: Mapping[str, str], timeout: float, sleep: Callable[[float], Awaitable[object]],
                output: OutputSink) -> Ended:
    """Start the tree, wait for it to end or for the timer, then kill and reap it whatever happened."""
    info_r, info_w = os.pipe() if sandboxed else (None, None)
    timer = asyncio.ensure_future(sleep(timeout))  # armed first: the clock counts from here
    try:
        proc = await asyncio.create_subprocess_exec(*argv_for(info_w), stdin=asyncio.subprocess.DEVNULL,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                                                    cwd=cwd, env=dict(env), start_new_session=True,
                                                    pass_fds=() if info_w is None else (info_w,))
    except BaseException as exc:
        timer.cancel()
        if info_r is not None:
            os.close(info_r)
        if isinstance(exc, OSError):
            raise NotStarted(str(exc)) from exc
        raise
    finally:
        if info_w is not None:
            os.close(info_w)
    assert proc.stdout is not None
    reader = asyncio.ensure_future(_pump(proc.stdout, output))
    waiter = asyncio.ensure_future(proc.wait())
    init_fd: int | None = None
    timed_out = False
    try:
        if info_r is not None:
            init_fd = _pidfd(await _child_pid(info_r))
        await asyncio.wait({timer, waiter}, return_when=asyncio.FIRST_COMPLETED)
        timed_out = not waiter.done()
    finally:
        timer.cancel()
        _kill_tree(proc.pid, init_fd)  # also ends what the command left running in the background
        await asyncio.shield(_reap(waiter, reader, init_fd))
    return Ended(None if timed_out else proc.returncode, timed_out)


async def _child_pid(fd: int) -> int | None:
    """Read bwrap's ``--info-fd`` JSON to its end; the sandbox init's host pid, if it said."""
    loop = asyncio.get_running_loop()
    data = bytearray()
    done: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            return
        if chunk:
            data.extend(chunk)
        elif not done.done():
            done.set_result(None)

    os.set_blocking(fd, False)
    loop.add_reader(fd, readable)
    try:
        await asyncio.wait_for(done, DRAIN_S)
        return int(json.loads(data)["child-pid"])
    except (asyncio.TimeoutError, ValueError, KeyError, TypeError):
        return None
    finally:
        loop.remove_reader(fd)
        os.close(fd)


def _pidfd(pid: int | None) -> int | None:
    if pid is None:
        return None
    try:
        return os.pidfd_open(pid)
    except OSError:  # already gone
        return None


async def _exited(pidfd: int) -> None:
    """Wait until the process behind ``pidfd`` has exited (its pidfd turns readable)."""
    loop = asyncio.get_running_loop()
    gone: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not gone.done():
            gone.set_result(None)

    loop.add_reader(pidfd, wake)
    try:
        await gone
    finally:
        loop.remove_reader(pidfd)


async def _pump(stream: asyncio.StreamReader, output: OutputSink) -> None:
    while chunk := await stream.read(65536):
        output.feed(chunk)


async def _reap(waiter: "asyncio.Future[int]", reader: "asyncio.Future[None]", init_fd: int | None) -> None:
    """Wait for bwrap, for every process of its namespace, and for the output pipe to close."""
    await waiter
    try:
        if init_fd is not None:
            await asyncio.wait_for(_exited(init_fd), DRAIN_S)
        await asyncio.wait_for(reader, DRAIN_S)
    except asyncio.TimeoutError:  # a process escaped the group (unsandboxed setsid) and holds the pipe
        pass
    finally:
        if init_fd is not None:
            os.close(init_fd)


def _kill_tree(pgid: int, init_fd: int | None) -> None:
    """SIGKILL the command's process group and the sandbox's init (its PID namespace dies with it)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if init_fd is not None:
        try:
            signal.pidfd_send_signal(init_fd, signal.SIGKILL)
        except (ProcessLookupError, OSError):
            pass
