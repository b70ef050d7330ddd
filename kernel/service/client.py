"""``RemoteKernel``: the facade (``kernel.api.KernelFacade``) of a kernel in another process.

The facade is synchronous, and so the desktop's and the terminal's code stay
as they are: each call is a blocking request on a socket of its own
(measured ~84 µs round trip; a timeout turns a hung kernel into an error,
not a frozen window). Events arrive on a second, asyncio connection, which
also carries ``wait`` (the reply comes in order after the agent's last
event). When that connection drops (the kernel restarted, or dropped us for
falling behind), it reconnects by itself and asks for what it missed: the
ledger entries after the last seq it saw; ``on_connection`` listeners hear
about both ends so views can refresh their snapshots and show attached or
detached.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, cast

from .. import api
from . import codec, protocol as p
from .channel import CALL_TIMEOUT_S, Subscribed, SyncChannel, connect_unix, hello_params, kernel_running
from ..config.home import socket_path
from .stubs import Link, RemoteAgentDesk, RemoteFacadeStubs

if TYPE_CHECKING:  # the events module is imported with the first event (codec), not before
    from ..api import Settings, Spend
    from ..core.events import Event


__all__ = ["CALL_TIMEOUT_S", "EventChannel", "RemoteAgents", "RemoteKernel", "SyncChannel", "hello_params",
           "kernel_running"]
log = logging.getLogger(__name__)
READ_SLICE_S = 0.002  # longest stretch of event decoding before the loop gets a turn (ui_bench: stall p99)
RECONNECT_S = (0.05, 0.1, 0.2, 0.5, 1.0)  # back-off between tries while the kernel is away


class EventChannel:
    """The asyncio connection: events in, ``wait`` calls out; reconnects while ``run`` lives."""

    def __init__(self, path: Path, client: str, answers_leases: bool, deliver: Callable[[int, Event], None],
                 on_connection: Callable[[bool], None]) -> None:
        self.path, self.client, self.answers_leases = path, client, answers_leases
        self._deliver, self._on_connection = deliver, on_connection
        self.last_seq: int | None = None
        self.connected = asyncio.Event()
        self._writer: asyncio.StreamWriter | None = None
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self._task: asyncio.Task[None] | None = None
        self._closing = False

    async def start(self, since_seq: int | None) -> None:
        """Connect and subscribe now (NotRunning when no kernel listens), then keep it up."""
        self.last_seq = since_seq
        reader = await self._open()
        self.connected.set()
        self._task = asyncio.get_running_loop().create_task(self._run(reader))

    async def adopt(self, subscribed: Subscribed) -> None:
        """Take over an events connection already subscribed (``channel.subscribe_blocking``), then keep it up
        as ``start`` does: what came with the subscribe reply is handled first, then the bytes read past it."""
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=p.MAX_LINE, loop=loop)
        if subscribed.rest:
            reader.feed_data(subscribed.rest)  # before the socket's own bytes: they came after these
        protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
        try:
            transport, _ = await loop.create_unix_connection(lambda: protocol, sock=subscribed.sock)
        except OSError as exc:
            subscribed.sock.close()
            raise p.NotRunning(f"no kernel is listening on {self.path} ({exc.strerror or exc})") from None
        self._writer = asyncio.StreamWriter(transport, protocol, reader, loop)
        for message in subscribed.messages:
            self._dispatch(message)
        self.connected.set()
        self._task = loop.create_task(self._run(reader))

    async def _open(self) -> asyncio.StreamReader:
        sock = await asyncio.to_thread(connect_unix, self.path, CALL_TIMEOUT_S)  # waits out a full listen queue
        try:
            reader, writer = await asyncio.open_unix_connection(sock=sock, limit=p.MAX_LINE)
        except OSError as exc:
            sock.close()
            raise p.NotRunning(f"no kernel is listening on {self.path} ({exc.strerror or exc})") from None
        self._writer = writer
        writer.write(codec.dumps(p.request(0, "hello", hello_params(self.client, self.answers_leases))))
        writer.write(codec.dumps(p.request(-1, "subscribe", {"since_seq": self.last_seq})))
        await writer.drain()
        await self._until_subscribed(reader)
        return reader

    async def _until_subscribed(self, reader: asyncio.StreamReader) -> None:
        """Read up to the subscribe reply (the replay comes first), so no event after this is missed."""
        while True:
            try:
                line = await reader.readline()
            except (ConnectionError, ValueError, asyncio.LimitOverrunError):
                line = b""
            if not line:
                raise p.NotRunning(f"the kernel on {self.path} closed the connection while subscribing")
            message = json.loads(line)
            if message.get("id") in (0, -1) and "error" in message:
                p.raise_remote(message["error"] if isinstance(message["error"], dict) else {})
            self._dispatch(message)
            if message.get("id") == -1:
                return

    async def _run(self, reader: asyncio.StreamReader) -> None:
        while not self._closing:
            await self._read(reader)
            self.connected.clear()
            self._fail_pending()
            if self._closing:
                return
            self._on_connection(False)
            reader = await self._reconnect()
            self.connected.set()
            self._on_connection(True)

    async def _reconnect(self) -> asyncio.StreamReader:
        for delay in itertools.chain(RECONNECT_S, itertools.repeat(RECONNECT_S[-1])):
            await asyncio.sleep(delay)  # the kernel is away: try again a little later
            try:
                return await self._open()
            except (p.ServiceError, ValueError):  # not up yet, or not answering as it should: try again
                continue
        raise AssertionError("unreachable")

    async def _read(self, reader: asyncio.StreamReader) -> None:
        slice_started = time.perf_counter()
        while True:
            if time.perf_counter() - slice_started > READ_SLICE_S:
                # readline returns at once while lines are buffered: a burst of events would hold the
                # loop (the desktop's window) for as long as it takes to decode them all, so give it a turn
                await asyncio.sleep(0)
                slice_started = time.perf_counter()
            try:
                line = await reader.readline()
            except (ConnectionError, ValueError, asyncio.LimitOverrunError):
                return
            if not line:
                return
            try:
                message = json.loads(line)
                self._dispatch(message)
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("dropped a message from the kernel: %s", exc)

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method == "event":
            params = message["params"]
            seq, event = int(params["seq"]), codec.decode(params["event"])
            if isinstance(event, api.LedgerAppended) and self.last_seq is not None and event.entry.seq <= self.last_seq:
                return  # replayed and published both: once is enough
            self.last_seq = seq if self.last_seq is None else max(self.last_seq, seq)
            self._deliver(seq, event)
        elif method == "resync":
            if self._writer is not None:
                self._writer.close()  # the read ends; _run reconnects from last_seq
        elif "id" in message:
            rid = message["id"]
            if rid == -1 and "result" in message:
                seq = message["result"].get("last_seq")
                if self.last_seq is None and isinstance(seq, int):
                    self.last_seq = seq
            future = self._pending.pop(rid, None)
            if future is not None and not future.done():
                future.set_result(message)

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        await self.connected.wait()
        assert self._writer is not None
        rid = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        self._writer.write(codec.dumps(p.request(rid, method, {k: codec.encode(v) for k, v in params.items()})))
        reply = await future
        if "error" in reply:
            p.raise_remote(reply["error"] if isinstance(reply["error"], dict) else {})
        return codec.decode(reply.get("result"))

    def _fail_pending(self) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(p.Disconnected("the kernel went away"))
        self._pending.clear()

    async def aclose(self) -> None:
        self._closing = True
        self.connected.clear()
        if self._writer is not None:
            self._writer.close()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self._fail_pending()


class RemoteKernel(RemoteFacadeStubs):
    """A ``KernelFacade`` served by the home's kernel process. ``await start()`` before use."""

    def __init__(self, path: Path, *, client: str = "client", answers_leases: bool = False,
                 timeout: float = CALL_TIMEOUT_S) -> None:
        self.path = path
        self._sync = SyncChannel(path, client, timeout)
        self._subscribers: list[Callable[[Event], None]] = []
        self._connection_listeners: list[Callable[[bool], None]] = []
        self._events = EventChannel(path, client, answers_leases, self._publish, self._connection_changed)
        self._link: Link = _Channels(self)
        self._settings: Settings | None = None
        self._spend: tuple[float, Spend] | None = None  # (local midnight, today's spend) while no request was made since
        self._spend_fetch: asyncio.Task[None] | None = None
        self._spend_gen = 0  # provider requests recorded so far (an answer older than the last one is not kept)
        self._spend_wanted = False
        self.kernel_pid: int | None = None
        self.kernel_started_at: float | None = None

    @classmethod
    def for_home(cls, home: Path, **kwargs: Any) -> "RemoteKernel":
        return cls(socket_path(home), **kwargs)

    async def start(self, since_seq: int | None = None) -> "RemoteKernel":
        """Connect both channels (NotRunning when no kernel listens)."""
        hello = await asyncio.to_thread(self._sync.connect)
        self.kernel_pid, self.kernel_started_at = hello.get("pid"), hello.get("started_at")
        await self._events.start(since_seq)
        return self

    async def start_subscribed(self, sync: SyncChannel, subscribed: Subscribed) -> "RemoteKernel":
        """Start from a call channel already connected and an events connection already subscribed, both made
        without an event loop (``agentdesk ask`` spawns and sends before it imports asyncio); then as ``start``."""
        self._sync.close()
        self._sync = sync
        self.kernel_pid, self.kernel_started_at = sync.hello.get("pid"), sync.hello.get("started_at")
        await self._events.adopt(subscribed)
        return self

    @property
    def connected(self) -> bool:
        return self._events.connected.is_set()

    def on_connection(self, fn: Callable[[bool], None]) -> Callable[[], None]:
        """``fn(True)`` when (re)connected, ``fn(False)`` when the kernel went away."""
        self._connection_listeners.append(fn)
        return lambda: self._connection_listeners.remove(fn) if fn in self._connection_listeners else None

    def _connection_changed(self, up: bool) -> None:
        if up:
            self._settings = None
            self._spend = None
        for fn in tuple(self._connection_listeners):
            try:
                fn(up)
            except Exception:
                log.exception("a connection listener failed")

    def _publish(self, seq: int, event: Event) -> None:
        if isinstance(event, api.LedgerAppended) and getattr(event.entry, "KIND", None) == "request":
            self._spend = None  # a provider request was made: fetched again, off the caller's way, for a caller
            if self._spend_wanted:  # that has asked before (the status line; not ``agentdesk ask``)
                self._fetch_spend()
        for fn in tuple(self._subscribers):
            try:
                fn(event)
            except Exception:
                log.exception("event subscriber failed on %s", type(event).__name__)

    # ---- the facade: the plain stubs are generated (stubs.py); these keep or convert ---------------------

    def now(self) -> float:
        return time.time()  # the kernel's clock is the system clock (kernel.core.clock.SystemClock)

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = cast("Settings", self._link.call("settings", {}))
        return self._settings

    def update_settings(self, settings: Settings) -> None:
        self._link.call("update_settings", {"settings": settings})
        self._settings = settings

    def subscribe(self, fn: Callable[[Event], None]) -> Callable[[], None]:
        self._subscribers.append(fn)
        return lambda: self._subscribers.remove(fn) if fn in self._subscribers else None

    async def caught_up(self) -> None:
        """Return once every event the kernel published before this call has reached the subscribers (the
        reply comes on the events connection, after them): what a view shows is then the kernel's state."""
        await self._events.call("ledger.last_seq", {})

    @property
    def agents(self) -> RemoteAgents:
        return RemoteAgents(self._link, self._spend_today)

    def _spend_today(self) -> Spend:
        """Today's spend; kept until a provider request is recorded or the day changes (the status line
        asks on every ledger append, and a round trip while the kernel streams stalls the caller's loop)."""
        from ..core.clock import local_midnight

        day = local_midnight(time.time())
        self._spend_wanted = True
        if self._spend is None or self._spend[0] != day:
            self._spend = (day, cast("Spend", self._link.call("agents.spend_today", {})))
        return self._spend[1]

    def _fetch_spend(self) -> None:
        """Ask for today's spend over the events connection, so ``spend_today`` finds it without waiting."""
        self._spend_gen += 1
        if self._spend_fetch is not None and not self._spend_fetch.done():
            return  # the fetch under way asks again when it ends (its answer may predate this request)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._spend_fetch = loop.create_task(self._fetched_spend(), name="spend today")

    async def _fetched_spend(self) -> None:
        from ..core.clock import local_midnight

        while True:
            gen, day = self._spend_gen, local_midnight(time.time())
            try:
                spend = cast("Spend", await self._link.acall("agents.spend_today", {}))
            except (api.KernelError, OSError):
                return  # the next ``spend_today`` asks directly
            if gen == self._spend_gen:
                if self._spend is None:
                    self._spend = (day, spend)
                return

    # ---- the service's own -----------------------------------------------------------

    def status(self) -> dict[str, Any]:
        return dict(self._sync.call("status"))

    def shutdown(self) -> None:
        self._sync.call("shutdown")

    async def aclose(self) -> None:
        """Let go of the kernel (it keeps running)."""
        if self._spend_fetch is not None:
            self._spend_fetch.cancel()
            await asyncio.gather(self._spend_fetch, return_exceptions=True)
        await self._events.aclose()
        self._sync.close()


class RemoteAgents(RemoteAgentDesk):
    """``kernel.api.AgentDesk`` over the socket; today's spend is kept by the ``RemoteKernel`` (see there)."""

    def __init__(self, link: Link, spend_today: Callable[[], Spend]) -> None:
        super().__init__(link)
        self._spend_today = spend_today

    def spend_today(self) -> Spend:
        return self._spend_today()


class _Channels:
    """The ``Link`` the stubs call through: plain calls block on the call channel; awaited ones (``wait``,
    what takes a while: MCP servers starting, skill folders hashed) go on the events connection, in order
    after the events before them and with no call timeout."""

    def __init__(self, kernel: RemoteKernel) -> None:
        self._kernel = kernel

    def call(self, method: str, params: dict[str, object]) -> object:
        return self._kernel._sync.call(method, params)

    async def acall(self, method: str, params: dict[str, object]) -> object:
        return await self._kernel._events.call(method, params)
