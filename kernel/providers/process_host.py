"""Run a provider's SDK in a child process, so its CPU never holds the caller's GIL.

The openai and google-genai SDKs spend milliseconds of pure-Python CPU per
request, growing with the conversation. A worker thread would keep that work
off the caller's *loop* but not off its *interpreter lock*: the desktop's
Qt/asyncio loop would still wait in 5 ms GIL slices. ``ProcessProvider``
hosts the real in-process adapter in a child, ``python -m
kernel.providers.host_main`` (the child side), and talks to it over its
stdin/stdout in the protocol of ``host_protocol``. This module is the parent
side: it starts the child, multiplexes streams over it, and imports neither
the registry nor any SDK.

If the child dies, its open streams raise ``ProviderError(kind="connection")``
and the next request starts a new child. The child runs at a lower CPU
priority (``host_main.NICENESS``) so that, on a machine with few cores, it
does not preempt the desktop.

benchmarks/ui_bench.py, four agents (one per provider) in 40-call tool loops
through the real SDKs, 2-core machine, event-loop stall p50 / p99 / max:
worker threads 11.6 / 125.9 / 232.1 ms; provider hosts 0.19 / 12.0 / 30.1 ms.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any, AsyncIterator, Awaitable, Callable, Protocol

from ..core.errors import ProviderError
from .base import ProviderRequest, StreamEvent
from .host_protocol import LINE_LIMIT, cancel_line, decode_error, decode_event, init_line, request_line

_CLOSE_WAIT_S = 1.0  # how long a closed stream waits for the child to confirm the response is closed
_EXIT_WAIT_S = 3.0
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


_DIED = object()


class HostProcess(Protocol):
    """What the parent side uses of its child: an ``asyncio.subprocess.Process`` in the product. The provider
    contract tests pass a stand-in that serves ``host_child`` over pipes in-process (the protocol without
    paying for a process and an SDK import per test); tests/providers/test_process_host.py runs the real one."""

    stdin: asyncio.StreamWriter | None
    stdout: asyncio.StreamReader | None

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int: ...

    def kill(self) -> None: ...


class _Host:
    """One child process and the streams open on it."""

    def __init__(self, name: str, proc: HostProcess) -> None:
        self.name = name
        self.proc = proc
        self.streams: dict[int, asyncio.Queue[Any]] = {}
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.died: str | None = None
        self.idle = asyncio.Event()  # set while no stream is open
        self.idle.set()
        self._next = 0
        self.reader = asyncio.create_task(self._read(), name=f"provider-host-{name}")

    @property
    def alive(self) -> bool:
        return self.died is None and self.proc.returncode is None

    def open(self, request: ProviderRequest) -> tuple[int, asyncio.Queue[Any]]:
        self._next += 1
        rid = self._next
        queue: asyncio.Queue[Any] = asyncio.Queue()
        self.streams[rid] = queue
        self.idle.clear()
        self.send(request_line(rid, request))
        return rid, queue

    def forget(self, rid: int) -> None:
        self.streams.pop(rid, None)
        if not self.streams:
            self.idle.set()

    def send(self, line: bytes) -> None:
        stdin = self.proc.stdin
        if stdin is not None and self.alive and not stdin.is_closing():
            stdin.write(line)

    async def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        reason = ""
        try:
            while True:
                line = await stdout.readline()
                if not line:
                    break
                msg = json.loads(line)
                rid = msg.get("id")
                if rid is None:
                    if "ready" in msg and not self.ready.done():
                        if msg["ready"]:
                            self.ready.set_result(None)
                        else:
                            self.ready.set_exception(ProviderError(self.name, "unsupported", msg.get("error", "")))
                    continue
                queue = self.streams.get(rid)
                if queue is not None:
                    queue.put_nowait(msg)
        except (ValueError, ConnectionError, OSError) as exc:
            reason = f" (its output could not be read: {exc})"
        code = self.proc.returncode
        if code is None:
            try:
                code = await asyncio.wait_for(self.proc.wait(), _CLOSE_WAIT_S)
            except asyncio.TimeoutError:
                code = None
        self.died = (f"the {self.name} provider host process exited unexpectedly"
                     f"{'' if code is None else f' (exit code {code})'}{reason}; the next request starts a new one")
        for queue in self.streams.values():
            queue.put_nowait(_DIED)
        if not self.ready.done():
            self.ready.set_exception(ProviderError(self.name, "connection", self.died))
            self.ready.exception()  # retrieved: nobody may be waiting for it

    async def close(self) -> None:
        stdin = self.proc.stdin
        if self.proc.returncode is None:
            if stdin is not None and not stdin.is_closing():
                stdin.close()  # EOF: the child closes its client and exits
            try:
                await asyncio.wait_for(self.proc.wait(), _EXIT_WAIT_S)
            except asyncio.TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        await self.reader


class ProcessProvider:
    """A Provider whose SDK adapter runs in a child process (one child, many concurrent streams)."""

    out_of_process = True

    def __init__(self, name: str, *, api_key: str, base_url: str | None = None, timeout_s: float = 120.0,
                 spawn: Callable[[], Awaitable[HostProcess]] | None = None) -> None:
        self.name = name
        self._init = {"name": name, "api_key": api_key, "base_url": base_url, "timeout_s": timeout_s}
        self._start_child = spawn  # None: ``python -m kernel.providers.host_main`` (see HostProcess)
        self._host: _Host | None = None
        self._starting = asyncio.Lock()

    @property
    def pid(self) -> int | None:
        """The child's process id, while one runs."""
        host = self._host
        return host.proc.pid if host is not None and host.alive else None

    async def warm(self) -> None:
        """Start the child now and wait until it has imported its SDK and built its client."""
        host = await self._ensure_host()
        await asyncio.shield(host.ready)

    async def _ensure_host(self) -> _Host:
        async with self._starting:
            host = self._host
            if host is None or not host.alive:
                if host is not None:
                    await host.close()
                host = self._host = await self._spawn()
            return host

    async def _spawn(self) -> _Host:
        if self._start_child is not None:
            host = _Host(self.name, await self._start_child())
            host.send(init_line(self._init))
            return host
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, env.get("PYTHONPATH", "")) if p)
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "kernel.providers.host_main",
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
                env=env, limit=LINE_LIMIT)
        except OSError as exc:
            raise ProviderError(self.name, "connection", f"could not start the provider host process: {exc}") from exc
        host = _Host(self.name, proc)
        host.send(init_line(self._init))
        return host

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        host = await self._ensure_host()
        rid, queue = host.open(request)
        started = False
        finished = False
        try:
            while True:
                msg = await queue.get()
                if msg is _DIED:
                    finished = True
                    raise ProviderError(self.name, "connection", host.died or "the provider host is gone",
                                        started=started)
                event = msg.get("event")
                if event is not None:
                    started = True
                    yield decode_event(event)
                elif "error" in msg:
                    finished = True
                    raise decode_error(msg["error"])
                elif msg.get("end"):
                    finished = True
                    return
        finally:
            if not finished and host.alive:
                host.send(cancel_line(rid))
                await _wait_closed(queue)
            host.forget(rid)

    async def aclose_when_idle(self) -> None:
        """Stop the child once no stream is open on it (for a provider being replaced while agents
        may still be streaming through it). A later request would start a new child."""
        host = self._host
        while host is not None and host.streams:
            await host.idle.wait()
            host = self._host
        await self.aclose()

    async def aclose(self) -> None:
        async with self._starting:
            host, self._host = self._host, None
        if host is not None:
            await host.close()


async def _wait_closed(queue: asyncio.Queue[Any]) -> None:
    """Wait briefly for the child to confirm the cancelled stream's response is closed."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + _CLOSE_WAIT_S
    try:
        while True:
            msg = await asyncio.wait_for(queue.get(), max(0.0, deadline - loop.time()))
            if msg is _DIED or "event" not in msg:
                return
    except asyncio.TimeoutError:
        return
