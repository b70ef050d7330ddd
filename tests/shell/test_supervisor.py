"""The process supervisor on its own (kernel/sandbox/supervisor.py): real processes, no sandbox, an
injected clock. What the shell tool makes of it (recording, bwrap, the overlay) is test_shell_exec's."""

from __future__ import annotations

import asyncio
import os
import select
from pathlib import Path

import pytest

from kernel.core.clock import ManualClock
from kernel.sandbox.supervisor import Ended, NotLimited, NotStarted, supervise

TIMEOUT_S = 30.0
GONE_WITHIN_S = 10.0  # a deadline for the kernel to report a killed process gone, not a pause


class Sink:
    """Collects the output; once a line starting ``ready`` arrives, runs ``on_ready`` with the pid it names."""

    def __init__(self, on_ready=None) -> None:
        self.data = bytearray()
        self.on_ready = on_ready
        self.pidfd: int | None = None

    def feed(self, chunk: bytes) -> None:
        self.data.extend(chunk)
        for line in bytes(self.data).splitlines():
            if line.startswith(b"ready ") and self.pidfd is None:
                self.pidfd = os.pidfd_open(int(line.split()[1]))  # the background child, held from now on
                if self.on_ready is not None:
                    self.on_ready()


def shell(command: str):
    return lambda info_fd, procs: ["sh", "-c", command]


def run(command: str, sink: Sink, clock: ManualClock, **kwargs) -> Ended:
    async def go() -> Ended:
        return await supervise(shell(command), sandboxed=False, cwd=Path("/"), env={"PATH": os.environ["PATH"]},
                               timeout=TIMEOUT_S, sleep=clock.sleep, output=sink, **kwargs)

    return asyncio.run(go())


def gone(pidfd: int) -> bool:
    """Whether the process behind ``pidfd`` has exited (its pidfd turns readable when it does)."""
    try:
        readable, _, _ = select.select([pidfd], [], [], GONE_WITHIN_S)
        return bool(readable)
    finally:
        os.close(pidfd)


def test_a_command_that_ends_gives_its_exit_code_and_output() -> None:
    sink = Sink()
    ended = run("echo out; echo err >&2; exit 3", sink, ManualClock())
    assert ended == Ended(exit_code=3, timed_out=False)
    assert bytes(sink.data) == b"out\nerr\n"  # stderr joins stdout, in order


def test_at_its_timeout_the_whole_tree_is_stopped_background_children_included() -> None:
    clock = ManualClock()
    sink = Sink(on_ready=lambda: clock.advance(TIMEOUT_S))  # its time is up once it has started its child
    ended = run("sleep 1000 & echo ready $!; wait", sink, clock)
    assert ended == Ended(exit_code=None, timed_out=True)
    assert sink.pidfd is not None and gone(sink.pidfd)  # the background sleep went with the group


def test_a_cancelled_supervision_stops_the_tree_before_it_lets_the_cancel_through() -> None:
    clock = ManualClock()
    task: asyncio.Task[Ended] | None = None
    sink = Sink(on_ready=lambda: task.cancel() if task is not None else None)

    async def go() -> None:
        nonlocal task
        task = asyncio.ensure_future(supervise(shell("sleep 1000 & echo ready $!; wait"), sandboxed=False,
                                               cwd=Path("/"), env={"PATH": os.environ["PATH"]}, timeout=TIMEOUT_S,
                                               sleep=clock.sleep, output=sink))
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert sink.pidfd is not None and gone(sink.pidfd)


def test_a_program_that_cannot_start_is_not_started(tmp_path: Path) -> None:
    async def go() -> None:
        await supervise(lambda fd, procs: [str(tmp_path / "no-such-program")], sandboxed=False, cwd=tmp_path,
                        env={}, timeout=TIMEOUT_S, sleep=ManualClock().sleep, output=Sink())

    with pytest.raises(NotStarted) as caught:
        asyncio.run(go())
    assert isinstance(caught.value.__cause__, FileNotFoundError)


def test_a_process_limit_that_cannot_be_set_up_stops_the_start(tmp_path: Path) -> None:
    started = []

    def argv(info_fd, procs):
        started.append(procs)
        return ["true"]

    async def go() -> None:
        await supervise(argv, sandboxed=False, cwd=tmp_path, env={}, timeout=TIMEOUT_S, sleep=ManualClock().sleep,
                        output=Sink(), cgroup=tmp_path / "no-such-cgroup", max_processes=8)

    with pytest.raises(NotLimited):
        asyncio.run(go())
    assert started == []  # nothing ran without its limit
