"""Run a provider's SDK in a child process, so its CPU never holds the caller's GIL.

The openai and google-genai SDKs spend milliseconds of pure-Python CPU per
request, growing with the conversation. A worker thread (``offloop``) keeps
that work off the caller's *loop* but not off its *interpreter lock*: the
desktop's Qt/asyncio loop still waits in 5 ms GIL slices. ``ProcessProvider``
hosts the real in-process adapter (``offload=False``) in a child,
``python -m kernel.providers.host_main``, and talks to it over its
stdin/stdout in newline-delimited JSON:

    parent → child  {"init": {"name", "api_key", "base_url", "timeout_s"}}     (first line; the key never in argv)
                    {"id": n, "request": {"system", "messages", "tools", "model", "max_tokens"}}
                    {"cancel": n}
    child → parent  {"ready": true} | {"ready": false, "error": "..."}         (after the SDK is imported)
                    {"id": n, "event": {"t": "x"|"c"|"u"|"e", ...}}             (TextDelta, ToolCallReady, UsageReport, StreamEnd)
                    {"id": n, "end": true}
                    {"id": n, "error": {"provider", "kind", "message", "status", "retry_after", "started"}}
                    {"id": n, "closed": true}                                  (after a cancel: the response is closed)

Streams are multiplexed by id over one child. The parent's cost per request
is joining cached JSON: each ``Message`` is serialized once (they are frozen
and recur in every request of a conversation) in an id-keyed cache that holds
the object, so the cost stays small and flat as a conversation grows; each
event line costs one ``json.loads``. If the child dies, its open streams raise
``ProviderError(kind="connection")`` and the next request starts a new child.
The child runs at a lower CPU priority (``host_main.NICENESS``) so that, on a
machine with few cores, it does not preempt the desktop.

benchmarks/ui_bench.py, four agents (one per provider) in 40-call tool loops
through the real SDKs, 2-core machine, event-loop stall p50 / p99 / max:
worker threads 11.6 / 125.9 / 232.1 ms; provider hosts 0.19 / 12.0 / 30.1 ms.
Parent-side cost of a request line at 81 messages: about 30 µs.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections import OrderedDict
from typing import Any, AsyncIterator, BinaryIO, Mapping

from ..errors import ProviderError
from ..messages import Message, TextPart, ToolResultPart, ToolUse
from .base import ProviderRequest, StreamEnd, StreamEvent, TextDelta, ToolCallReady, ToolSpec, UsageReport

_LINE_LIMIT = 1 << 28  # a request line holds the whole conversation
_CLOSE_WAIT_S = 1.0  # how long a closed stream waits for the child to confirm the response is closed
_EXIT_WAIT_S = 3.0
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# --------------------------------------------------------------------------- wire format

def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=_jsonable)


def _encode_part(part: Any) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"t": "text", "text": part.text}
    if isinstance(part, ToolUse):
        return {"t": "use", "id": part.id, "name": part.name, "input": part.input, "meta": part.meta}
    if isinstance(part, ToolResultPart):
        return {"t": "result", "tool_use_id": part.tool_use_id, "name": part.name, "content": part.content,
                "is_error": part.is_error}
    raise TypeError(f"cannot send a {type(part).__name__} to the provider host")


def encode_message(message: Message) -> str:
    return _dumps({"role": message.role, "parts": [_encode_part(p) for p in message.parts]})


def encode_tool(tool: ToolSpec) -> str:
    return _dumps({"name": tool.name, "description": tool.description, "input_schema": tool.input_schema})


def _decode_part(data: dict[str, Any]) -> Any:
    kind = data["t"]
    if kind == "text":
        return TextPart(data["text"])
    if kind == "use":
        return ToolUse(data["id"], data["name"], data["input"], data.get("meta") or {})
    return ToolResultPart(data["tool_use_id"], data["name"], data["content"], data["is_error"])


def decode_request(data: dict[str, Any]) -> ProviderRequest:
    messages = tuple(Message(m["role"], tuple(_decode_part(p) for p in m["parts"])) for m in data["messages"])
    tools = tuple(ToolSpec(t["name"], t["description"], t["input_schema"]) for t in data["tools"])
    return ProviderRequest(system=data["system"], messages=messages, tools=tools, model=data["model"],
                           max_tokens=data["max_tokens"])


class _JsonCache:
    """JSON text per frozen object, keyed by ``id`` and holding the object (so the id stays its own).

    Messages and tool specs hold dicts, so they are not hashable and cannot be weak keys;
    an LRU bounded by ``size`` keeps the cache from growing without end."""

    def __init__(self, size: int = 16384) -> None:
        self._size = size
        self._items: OrderedDict[int, tuple[Any, str]] = OrderedDict()

    def get(self, obj: Any, encode: Any) -> str:
        key = id(obj)
        hit = self._items.get(key)
        if hit is not None and hit[0] is obj:
            self._items.move_to_end(key)
            return hit[1]
        text = encode(obj)
        self._items[key] = (obj, text)
        if len(self._items) > self._size:
            self._items.popitem(last=False)
        return text

    def __len__(self) -> int:
        return len(self._items)


_CACHE = _JsonCache()


def request_line(rid: int, request: ProviderRequest, cache: _JsonCache = _CACHE) -> bytes:
    """The request as one protocol line; messages and tools come from ``cache``."""
    messages = ",".join([cache.get(m, encode_message) for m in request.messages])
    tools = ",".join([cache.get(t, encode_tool) for t in request.tools])
    head = _dumps({"system": request.system, "model": request.model, "max_tokens": request.max_tokens})
    return (f'{{"id":{rid},"request":{{{head[1:-1]},"tools":[{tools}],"messages":[{messages}]}}}}\n'
            .encode())


def encode_event(event: StreamEvent) -> dict[str, Any]:
    if isinstance(event, TextDelta):
        return {"t": "x", "text": event.text}
    if isinstance(event, ToolCallReady):
        return {"t": "c", "id": event.id, "name": event.name, "input": event.input, "raw": event.raw_arguments,
                "error": event.error, "meta": event.meta}
    if isinstance(event, UsageReport):
        return {"t": "u", "i": event.input_tokens, "o": event.output_tokens}
    if isinstance(event, StreamEnd):
        return {"t": "e", "stop": event.stop_reason}
    raise TypeError(f"unknown stream event {event!r}")


def decode_event(data: dict[str, Any]) -> StreamEvent:
    kind = data["t"]
    if kind == "x":
        return TextDelta(data["text"])
    if kind == "c":
        return ToolCallReady(data["id"], data["name"], data["input"], data["raw"], data["error"], data["meta"] or {})
    if kind == "u":
        return UsageReport(data["i"], data["o"])
    return StreamEnd(data["stop"])


def encode_error(exc: ProviderError) -> dict[str, Any]:
    return {"provider": exc.provider, "kind": exc.kind, "message": exc.detail, "status": exc.status,
            "retry_after": exc.retry_after, "started": exc.started}


def decode_error(data: dict[str, Any]) -> ProviderError:
    return ProviderError(data["provider"], data["kind"], data["message"], status=data["status"],
                         retry_after=data["retry_after"], started=data["started"])


# --------------------------------------------------------------------------- parent side

_DIED = object()


class _Host:
    """One child process and the streams open on it."""

    def __init__(self, name: str, proc: asyncio.subprocess.Process) -> None:
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

    def __init__(self, name: str, *, api_key: str, base_url: str | None = None, timeout_s: float = 120.0) -> None:
        self.name = name
        self._init = {"name": name, "api_key": api_key, "base_url": base_url, "timeout_s": timeout_s}
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
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, env.get("PYTHONPATH", "")) if p)
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "kernel.providers.host_main",
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
                env=env, limit=_LINE_LIMIT)
        except OSError as exc:
            raise ProviderError(self.name, "connection", f"could not start the provider host process: {exc}") from exc
        host = _Host(self.name, proc)
        host.send((_dumps({"init": self._init}) + "\n").encode())
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
                host.send(f'{{"cancel":{rid}}}\n'.encode())
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


# --------------------------------------------------------------------------- child side

async def serve(inp: BinaryIO, out: BinaryIO) -> None:
    """The host's main loop: build the adapter from the init line, then serve requests until EOF."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), inp)
    transport, _ = await loop.connect_write_pipe(asyncio.Protocol, out)

    def send(obj: dict[str, Any]) -> None:
        if not transport.is_closing():
            transport.write((_dumps(obj) + "\n").encode())

    first = await reader.readline()
    if not first:
        return
    init = json.loads(first)["init"]
    from .registry import build_adapter

    adapter: Any = build_adapter(init["name"], init["api_key"], init["base_url"], init["timeout_s"], offload=False)
    name = init["name"]
    try:
        await adapter.warm()
    except ImportError as exc:
        send({"ready": False, "error": f"the SDK for {name} is not installed ({exc.name})"})
    else:
        send({"ready": True})
    tasks: dict[int, asyncio.Task[None]] = {}

    async def run_one(rid: int, request: ProviderRequest) -> None:
        started = False
        events = adapter.stream(request)
        try:
            async for event in events:
                started = True
                send({"id": rid, "event": encode_event(event)})
            send({"id": rid, "end": True})
        except asyncio.CancelledError:
            pass
        except ProviderError as exc:
            send({"id": rid, "error": encode_error(exc)})
        except ImportError as exc:
            send({"id": rid, "error": encode_error(ProviderError(
                name, "unsupported", f"the SDK for {name} is not installed ({exc.name})"))})
        except Exception as exc:  # noqa: BLE001 - a bug in the host must reach the caller, not kill the host
            send({"id": rid, "error": encode_error(ProviderError(
                name, "stream", f"the provider host failed: {type(exc).__name__}: {exc}", started=started))})
        finally:
            try:
                await events.aclose()
            finally:
                tasks.pop(rid, None)
                send({"id": rid, "closed": True})

    try:
        while True:
            line = await reader.readline()
            if not line:
                break
            msg = json.loads(line)
            if "request" in msg:
                rid = msg["id"]
                tasks[rid] = asyncio.create_task(run_one(rid, decode_request(msg["request"])))
            elif "cancel" in msg:
                task = tasks.get(msg["cancel"])
                if task is not None:
                    task.cancel()
    finally:
        for task in list(tasks.values()):
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks.values(), return_exceptions=True)
        await adapter.aclose()
        transport.close()
