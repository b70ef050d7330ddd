"""The kernel service: one kernel's facade and events over a Unix socket.

Each connection is checked (peer uid, then ``hello`` with the protocol
version) and then served on its own: requests are answered in order, ``wait``
runs as a task so it never blocks the connection, and events go through a
bounded queue per subscriber to one writer task (so a slow client never slows
the kernel; one that falls ``QUEUE_LIMIT`` behind is told to resync and
dropped, never silently short of events). Every ``StreamWriter`` is kept in
``_connections`` until its connection ends: on Python 3.11 a writer that is
garbage-collected closes its socket. Bad input of any kind (not JSON, not a
request, unknown method, wrong params, a line over ``MAX_LINE``) is an error
reply or a closed connection for that client alone.

The server can listen before its kernel exists (issue 28: the kernel serves
first): ``KernelServer(None, path)`` answers ``hello`` and ``shutdown`` at
once and holds every other request of a connection, in order, until
``attach(kernel)``. This module imports nothing of the kernel's rooms at the
top for that reason: what the socket's first answer needs is json, asyncio and
``protocol``; the facade's method table (``methods``, ~0.3 s of imports) and
the event classes are loaded by the time a kernel is attached.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Mapping

from . import codec, peers, protocol as p

if TYPE_CHECKING:
    from ..core.events import Event
    from .methods import Method

log = logging.getLogger(__name__)
REPLAY_PAGE = 500  # ledger entries read per step of a replay
REFUSE_WAIT_S = 2.0  # how long a refused client may take to send the request its error answers


@dataclass(eq=False)
class Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    greeted: bool = False
    answers_leases: bool = False
    queue: asyncio.Queue[bytes | None] | None = None
    since: int | None = None
    dropped: bool = False
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)


def peer_creds(sock: socket.socket | None) -> tuple[int, int, int] | None:
    """(pid, uid, gid) of the process that connected, as the kernel recorded them at ``connect``."""
    if sock is None or not hasattr(socket, "SO_PEERCRED"):
        return None
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", creds)
    return int(pid), int(uid), int(gid)


def listen_backlog(somaxconn: Path = Path("/proc/sys/net/core/somaxconn")) -> int:
    """How many connections may wait to be accepted: as many as the system allows (``listen`` cuts a larger
    number down to ``net.core.somaxconn``). asyncio's default of 100 refused 83 of a burst of 300 clients
    (issue 23); a client also waits for room rather than give up (``channel.connect_unix``)."""
    try:
        allowed = int(somaxconn.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        allowed = 0
    return max(socket.SOMAXCONN, allowed)


class KernelServer:
    """Serves ``kernel`` (a ``kernel.facade.Kernel``) on ``path`` until ``stop`` is called; ``kernel`` None:
    listens at once and serves the kernel handed to ``attach`` later (requests wait for it)."""

    def __init__(self, kernel: Any | None, path: Path, *, status: Callable[[], dict[str, Any]] | None = None,
                 on_attached: Callable[[bool], None] | None = None, on_settings: Callable[[], None] | None = None,
                 queue_limit: int = p.QUEUE_LIMIT) -> None:
        self.kernel: Any = None
        self.path = path
        self.started_at = time.time()
        self.stopped = asyncio.Event()
        self._kernel_ready = asyncio.Event()
        self._status: Callable[[], dict[str, Any]] = lambda: {}
        self._on_attached: Callable[[bool], None] = lambda attached: None
        self._on_settings: Callable[[], None] = lambda: None  # keys or base URLs may have changed
        self._queue_limit = queue_limit
        self._connections: set[Connection] = set()
        self._server: asyncio.base_events.Server | None = None
        self._seq = 0
        self._unsubscribe: Callable[[], None] = lambda: None
        self._methods: Mapping[str, Method] = {}
        self._appended: type[Any] = type(None)  # LedgerAppended, once a kernel is attached
        if kernel is not None:
            self.attach(kernel, status=status, on_attached=on_attached, on_settings=on_settings)

    def attach(self, kernel: Any, *, status: Callable[[], dict[str, Any]] | None = None,
               on_attached: Callable[[bool], None] | None = None,
               on_settings: Callable[[], None] | None = None) -> None:
        """Serve ``kernel`` from now on: the requests held since listening go on, in order."""
        from ..core.events import LedgerAppended
        from .methods import METHODS

        self._methods, self._appended = METHODS, LedgerAppended
        self._status = status or self._status
        self._on_attached = on_attached or self._on_attached
        self._on_settings = on_settings or self._on_settings
        self.kernel = kernel
        self._seq = kernel.ledger.last_seq()
        self._unsubscribe = kernel.subscribe(self._publish)
        self._kernel_ready.set()
        if self.attached():  # a desktop said hello before the kernel was there: it answers lease requests
            self._attached_changed()

    async def start(self) -> None:
        if self.path.is_socket():
            self.path.unlink()  # left by a kernel that died (we hold the home's lock: it is not running)
        old = os.umask(0o177)  # the socket is born 0600: no window before a chmod
        try:
            self._server = await asyncio.start_unix_server(self._serve, path=str(self.path), limit=p.MAX_LINE,
                                                           backlog=listen_backlog())
        finally:
            os.umask(old)

    async def stop(self) -> None:
        """Stop listening, close every connection."""
        self._unsubscribe()
        if self._server is not None:
            self._server.close()
        for conn in list(self._connections):
            conn.writer.close()
        if self._server is not None:
            await self._server.wait_closed()
        try:
            self.path.unlink()
        except OSError:
            pass
        self.stopped.set()

    # ---- events ------------------------------------------------------------

    def _publish(self, event: Event) -> None:
        if isinstance(event, self._appended):
            self._seq = max(self._seq, event.entry.seq)
        line: bytes | None = None
        for conn in self._connections:
            if conn.queue is None or conn.dropped:
                continue
            if line is None:
                line = codec.dumps(p.notification("event", {"seq": self._seq, "event": codec.encode(event)}))
            try:
                conn.queue.put_nowait(line)
            except asyncio.QueueFull:
                conn.dropped = True  # the writer tells it to resync, then closes
                conn.queue = _drop_queue(conn.queue)

    async def _write_events(self, conn: Connection) -> None:
        assert conn.queue is not None
        writer = conn.writer
        if conn.since is not None:
            await self._replay(conn, conn.since)
        while True:
            # Everything published since the last wake-up goes out in one write: one send for the kernel
            # and one wake-up for the client per loop iteration, not one per event (issue 11: event
            # delivery p99 <= 5 ms at 20 agents x 100 deltas/s).
            lines: list[bytes] = []
            line = await conn.queue.get()
            while line is not None:
                lines.append(line)
                if conn.queue.empty():
                    break
                line = conn.queue.get_nowait()
            if line is None:  # dropped for falling behind: told to resync, then closed
                lines.append(codec.dumps(p.notification("resync", {"reason": "too far behind: subscribe again"})))
                writer.write(b"".join(lines))
                await writer.drain()
                writer.close()
                return
            writer.write(b"".join(lines))
            if conn.queue.empty():
                await writer.drain()

    async def _replay(self, conn: Connection, since: int) -> None:
        """The entries after ``since`` up to now, oldest first, as LedgerAppended events."""
        upto = self._seq
        after = since
        while after < upto:  # windows of REPLAY_PAGE seqs: a page is newest first, so each holds all of one window
            window_end = min(after + REPLAY_PAGE, upto)
            page = self.kernel.ledger.page(after=after, before=window_end + 1, limit=REPLAY_PAGE)
            for entry in reversed(page):
                event = self._appended(entry)
                conn.writer.write(codec.dumps(p.notification("event", {"seq": entry.seq,
                                                                       "event": codec.encode(event)})))
            after = window_end
            await conn.writer.drain()

    # ---- connections ---------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = Connection(reader, writer)
        self._connections.add(conn)
        try:
            creds = peer_creds(writer.get_extra_info("socket"))
            if creds is not None and creds[1] != os.getuid():
                log.warning("refused a client of uid %s", creds[1])
                return
            refused = peers.judge(creds[0] if creds is not None else None)
            if refused is not None:  # a process the kernel started (MCP server, hook, unsandboxed command)
                log.warning("refused a client: %s", refused.reason)
                await self._refuse(conn, refused.reason)
                return
            await self._read(conn)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._connections.discard(conn)
            for task in conn.tasks:
                task.cancel()
            writer.close()
            if conn.answers_leases and self.kernel is not None:
                self._attached_changed()

    async def _refuse(self, conn: Connection, reason: str) -> None:
        """Answer the first request (read for at most ``REFUSE_WAIT_S``) with an error, then the caller closes:
        closing before reading what the client sent would reset the connection and lose the error."""
        rid = None
        try:
            line = await asyncio.wait_for(conn.reader.readline(), REFUSE_WAIT_S)
            message = json.loads(line) if line.strip() else None
            rid = message.get("id") if isinstance(message, dict) and _valid_id(message.get("id")) else None
        except (asyncio.TimeoutError, ValueError, RecursionError, asyncio.LimitOverrunError):
            pass
        await self._reply(conn, p.error(rid, p.PEER_REFUSED, f"refused: {reason}"))

    async def _read(self, conn: Connection) -> None:
        while not conn.dropped:
            try:
                line = await conn.reader.readline()
            except (ValueError, asyncio.LimitOverrunError):  # over MAX_LINE: the stream cannot resync
                await self._reply(conn, p.error(None, p.INVALID_REQUEST, "line too long"))
                return
            if not line:
                return
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except (ValueError, RecursionError):
                await self._reply(conn, p.error(None, p.PARSE_ERROR, "not JSON"))
                continue
            await self._handle(conn, message)

    async def _reply(self, conn: Connection, message: dict[str, Any]) -> None:
        """Answer; on a subscribed connection through its queue, so a reply never overtakes the
        events published before it (``wait`` returns after the agent's last delta arrived)."""
        try:
            data = codec.dumps(message)
        except (ValueError, TypeError, RecursionError) as exc:
            data = codec.dumps(p.error(message.get("id"), p.INTERNAL_ERROR, f"unencodable reply: {exc}"))
        if conn.queue is not None:
            if not conn.dropped:
                try:
                    conn.queue.put_nowait(data)
                except asyncio.QueueFull:
                    conn.dropped = True
                    conn.queue = _drop_queue(conn.queue)
            return
        conn.writer.write(data)
        await conn.writer.drain()

    async def _handle(self, conn: Connection, message: Any) -> None:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
            rid = message.get("id") if isinstance(message, dict) else None
            await self._reply(conn, p.error(rid if _valid_id(rid) else None, p.INVALID_REQUEST, "not a JSON-RPC 2.0 request"))
            return
        rid = message.get("id")
        if not _valid_id(rid):
            await self._reply(conn, p.error(None, p.INVALID_REQUEST, "bad id"))
            return
        if rid is None:
            return  # a notification from a client: nothing to answer, nothing we act on
        method, params = message["method"], message.get("params")
        if method == "hello":
            await self._reply(conn, self._hello(conn, rid, params))
            return
        if not conn.greeted:
            await self._reply(conn, p.error(rid, p.NOT_HELLO, "say hello first"))
            return
        if method == "shutdown":
            await self._reply(conn, p.result(rid, True))
            asyncio.get_running_loop().call_soon(self.stopped.set)
            return
        if not self._kernel_ready.is_set() and not await self._kernel_came():
            return  # stopped before a kernel was attached: the connection is closed unanswered
        if method == "subscribe":
            await self._reply(conn, self._subscribe(conn, rid, params))
            return
        if method == "status":
            await self._reply(conn, p.result(rid, self.status()))
            return
        await self._call(conn, rid, method, params)

    async def _kernel_came(self) -> bool:
        """Wait (listening before the kernel is built) until a kernel is attached (True) or the server stops."""
        came = asyncio.ensure_future(self._kernel_ready.wait())
        stopping = asyncio.ensure_future(self.stopped.wait())
        try:
            await asyncio.wait({came, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            came.cancel()
            stopping.cancel()
        return self._kernel_ready.is_set()

    def _hello(self, conn: Connection, rid: Any, params: Any) -> dict[str, Any]:
        if not isinstance(params, dict) or params.get("version") != p.VERSION:
            return p.error(rid, p.BAD_VERSION, f"this kernel speaks version {p.VERSION}")
        conn.greeted = True
        leases = params.get("answers_leases") is True
        if leases and not conn.answers_leases:
            conn.answers_leases = True
            if self.kernel is not None:  # (else told when the kernel is attached)
                self._attached_changed()
        return p.result(rid, {"version": p.VERSION, "pid": os.getpid(), "started_at": self.started_at})

    def _subscribe(self, conn: Connection, rid: Any, params: Any) -> dict[str, Any]:
        since = params.get("since_seq") if isinstance(params, dict) else None
        if since is not None and (not isinstance(since, int) or isinstance(since, bool) or since < 0):
            return p.error(rid, p.INVALID_PARAMS, "since_seq must be a seq or null")
        if conn.queue is not None:
            return p.error(rid, p.INVALID_REQUEST, "already subscribed")
        conn.queue = asyncio.Queue(self._queue_limit)
        conn.since = since
        task = asyncio.get_running_loop().create_task(self._write_events(conn))
        conn.tasks.add(task)
        task.add_done_callback(lambda t: conn.writer.close() if not t.cancelled() and t.exception() else None)
        return p.result(rid, {"last_seq": self._seq})

    async def _call(self, conn: Connection, rid: Any, name: str, params: Any) -> None:
        method = self._methods.get(name)
        if method is None:
            await self._reply(conn, p.error(rid, p.METHOD_NOT_FOUND, f"no method {name!r}"))
            return
        try:
            if isinstance(params, dict):
                params = {k: codec.decode(v) for k, v in params.items()}
            kwargs = method.bind(params)
        except (ValueError, RecursionError) as exc:
            await self._reply(conn, p.error(rid, p.INVALID_PARAMS, str(exc), p.error_data(exc)))
            return
        target: Any = self.kernel
        if "." in name:  # a desk's method (automations.add): the desk is a property of the kernel
            desk, name = name.split(".", 1)
            target = getattr(self.kernel, desk)
        if method.is_property:
            await self._reply(conn, p.result(rid, codec.encode(getattr(target, name))))
        elif method.is_async:
            task = asyncio.get_running_loop().create_task(self._answer(conn, rid, getattr(target, name)(**kwargs)))
            conn.tasks.add(task)
            task.add_done_callback(conn.tasks.discard)
        else:
            await self._reply(conn, self._outcome(rid, lambda: getattr(target, name)(**kwargs)))
            if name == "update_settings":
                self._on_settings()

    async def _answer(self, conn: Connection, rid: Any, call: Awaitable[Any]) -> None:
        try:
            value = await call
        except Exception as exc:  # noqa: BLE001 - every kernel error, and the unexpected: the client hears it
            await self._reply(conn, p.error(rid, p.KERNEL_ERROR, str(exc), p.error_data(exc)))
            return
        await self._reply(conn, p.result(rid, codec.encode(value)))

    def _outcome(self, rid: Any, call: Callable[[], Any]) -> dict[str, Any]:
        try:
            value = call()
            if isinstance(value, asyncio.Task):
                value = None  # send/resume: the work goes on in the kernel; wait() waits for it
            return p.result(rid, codec.encode(value))
        except Exception as exc:  # noqa: BLE001 - every kernel error, and the unexpected: the client hears it
            if not isinstance(exc, (ValueError, LookupError)) and type(exc).__module__.split(".")[0] not in ("kernel", "ledger"):
                log.exception("a facade call failed")
            return p.error(rid, p.KERNEL_ERROR, str(exc) or type(exc).__name__, p.error_data(exc))

    # ---- the kernel's own state ------------------------------------------------

    def attached(self) -> bool:
        return any(c.answers_leases for c in self._connections)

    def _attached_changed(self) -> None:
        self._on_attached(self.attached())

    def status(self) -> dict[str, Any]:
        base = {"pid": os.getpid(), "started_at": self.started_at, "clients": len(self._connections),
                "attached": self.attached(), "last_seq": self._seq}
        base.update(self._status())
        return base


def _valid_id(rid: Any) -> bool:
    return rid is None or isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool))


def _drop_queue(old: asyncio.Queue[bytes | None]) -> asyncio.Queue[bytes | None]:
    """A queue that tells the writer only to send resync and stop."""
    fresh: asyncio.Queue[bytes | None] = asyncio.Queue()
    fresh.put_nowait(None)
    return fresh
