"""The provider host's child side (``host_child.serve``) run on the caller's loop over two OS pipes.

``ProcessProvider(name, spawn=InlineHost.start)`` then speaks the real host protocol, both
directions, through real pipes, and the real ``serve`` builds the real adapter, which drives its
real SDK against the loopback fake. Only the process is missing, which is what the provider
contract suite can do without: a child per test costs an interpreter and an SDK import (seconds of
CPU, run at nice 10). What the process itself adds (a child killed mid-request, one child shared by
concurrent streams, the key kept out of argv and environment) is tests/providers/test_process_host.py,
on real children.
"""

from __future__ import annotations

import asyncio
import os

from kernel.providers.host_child import serve
from kernel.providers.host_protocol import LINE_LIMIT


class InlineHost:
    """A stand-in for the host's ``asyncio.subprocess.Process`` (kernel.providers.process_host.HostProcess)."""

    def __init__(self, task: asyncio.Task[None], stdin: asyncio.StreamWriter, stdout: asyncio.StreamReader) -> None:
        self._task = task
        self.stdin: asyncio.StreamWriter | None = stdin
        self.stdout: asyncio.StreamReader | None = stdout

    @classmethod
    async def start(cls) -> "InlineHost":
        loop = asyncio.get_running_loop()
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        stdout = asyncio.StreamReader(limit=LINE_LIMIT)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdout), os.fdopen(from_child_r, "rb", 0))
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                            os.fdopen(to_child_w, "wb", 0))
        stdin = asyncio.StreamWriter(transport, protocol, None, loop)
        task = loop.create_task(serve(os.fdopen(to_child_r, "rb", 0), os.fdopen(from_child_w, "wb", 0)),
                                name="inline-provider-host")
        return cls(task, stdin, stdout)

    @property
    def pid(self) -> int:
        return os.getpid()

    @property
    def returncode(self) -> int | None:
        if not self._task.done():
            return None
        return 0 if not self._task.cancelled() and self._task.exception() is None else 1

    async def wait(self) -> int:
        await asyncio.wait({self._task})
        code = self.returncode
        assert code is not None
        return code

    def kill(self) -> None:
        self._task.cancel()
