"""``in_daemon_thread``: awaited like ``asyncio.to_thread`` (its result, its exception), but a loop that ends
while the work still runs does not wait for it (issue 28: the kernel's head starts never delay its stop)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from kernel.core.daemon_thread import in_daemon_thread


def test_the_result_and_the_exception_come_back_to_the_caller() -> None:
    def fail() -> int:
        raise LookupError("nothing here")

    async def body() -> tuple[int, str]:
        got = await in_daemon_thread(lambda: 6 * 7, "answer")
        with pytest.raises(LookupError) as raised:
            await in_daemon_thread(fail, "failing")
        return got, str(raised.value)

    assert asyncio.run(body()) == (42, "nothing here")


def test_a_loop_ending_while_the_work_runs_does_not_wait_for_it() -> None:
    started, gate = threading.Event(), threading.Event()
    guard = threading.Timer(60, gate.set)  # a broken change fails below instead of hanging
    guard.start()

    def slow() -> None:
        started.set()
        gate.wait(60)

    async def body() -> None:
        asyncio.ensure_future(in_daemon_thread(slow, "slow"))
        await asyncio.to_thread(started.wait, 60)

    try:
        asyncio.run(body())
        ended_first = not gate.is_set()
    finally:
        gate.set()
        guard.cancel()
    assert ended_first
