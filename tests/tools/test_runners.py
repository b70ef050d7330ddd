"""How the file tools run: reads in a worker thread that a cancel stops, OS errors as readable failures."""

from __future__ import annotations

import asyncio
import threading

import pytest

from kernel.core.errors import ToolFailure
from kernel.tools.descriptor import ToolOutput
from kernel.tools.fs import FS_READ
from kernel.tools.fs.common import inline_runner, thread_runner


def test_cancelling_a_threaded_call_sets_its_stop_flag(env) -> None:
    started, stopped = threading.Event(), threading.Event()

    def body(ctx, args, stop: threading.Event) -> ToolOutput:
        started.set()
        if stop.wait(10):  # a safety net only: the test sets the flag at once
            stopped.set()
        return ToolOutput("done")

    run = thread_runner(body)

    async def scenario() -> bool:
        task = asyncio.create_task(run(env.context(FS_READ, {}), {}))
        assert await asyncio.to_thread(started.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return await asyncio.to_thread(stopped.wait, 10)

    assert asyncio.run(scenario())


def test_os_errors_become_failures_with_a_relative_path(env) -> None:
    def body(ctx, args) -> ToolOutput:
        raise PermissionError(13, "Permission denied", str(env.root / "locked/a.txt"))

    with pytest.raises(ToolFailure) as info:
        asyncio.run(inline_runner(body)(env.context(FS_READ, {}), {}))
    assert info.value.message == "the file system refused: Permission denied (locked/a.txt)"


def test_reads_in_parallel_share_one_ledger_and_workspace(env) -> None:
    for n in range(8):
        env.put(f"f{n}.txt", f"file {n}\n")

    async def scenario() -> list[str]:
        calls = [FS_READ.run(env.context(FS_READ, {"path": f"f{n}.txt"}), {"path": f"f{n}.txt"}) for n in range(8)]
        return [out.content for out in await asyncio.gather(*calls)]

    assert asyncio.run(scenario()) == [f"file {n}\n" for n in range(8)]
