"""The blocking side of a client: ``SyncChannel`` (one call at a time on a socket of its own) and an
events socket subscribed without an event loop.

Nothing here imports asyncio: ``agentdesk ask`` attaches, spawns its agent and
sends the prompt with these, and imports asyncio (~20-80 ms) only once the
prompt is on its way (issue 11: start to the first provider request through a
kernel <= 150 ms). ``client.RemoteKernel`` takes both over for the rest.
"""

from __future__ import annotations

import errno
import itertools
import json
import socket
import struct
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import codec, protocol as p
from ..config.home import socket_path

CALL_TIMEOUT_S = 30.0
REFUSED_RETRY_S = 2.0  # how long a refused connect is tried again while the home's lock is held


def hello_params(client: str, answers_leases: bool) -> dict[str, Any]:
    return {"version": p.VERSION, "client": client, "answers_leases": answers_leases}


class SyncChannel:
    """Blocking request/response on one socket, one call at a time (thread-safe)."""

    def __init__(self, path: Path, client: str, timeout: float = CALL_TIMEOUT_S) -> None:
        self.path, self.client, self.timeout = path, client, timeout
        self._sock: socket.socket | None = None
        self._buffer = b""
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.hello: dict[str, Any] = {}

    def connect(self) -> dict[str, Any]:
        with self._lock:
            return self._connect()

    def _connect(self) -> dict[str, Any]:
        self._close()
        self._sock, self._buffer = connect_unix(self.path, self.timeout), b""
        hello = codec.decode(self._exchange("hello", hello_params(self.client, False)))
        self.hello = hello if isinstance(hello, dict) else {}
        return self.hello

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """The decoded result of ``method`` (the kernel's error raised as its class)."""
        return codec.decode(self.call_raw(method, params))

    def call_raw(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """The result of ``method`` as the JSON the kernel sent, not decoded: hostile data, to be checked
        field by field (``ask`` reads two fields of the settings and the new agent's id this way, without
        importing the types they would decode to)."""
        with self._lock:
            if self._sock is None:
                self._connect()
            try:
                return self._exchange(method, params or {})
            except p.Disconnected:
                self._connect()  # the kernel restarted between calls: one fresh try
                return self._exchange(method, params or {})

    def _exchange(self, method: str, params: dict[str, Any]) -> Any:
        assert self._sock is not None
        rid = next(self._ids)
        encoded = {k: codec.encode(v) for k, v in params.items()}
        try:
            self._sock.sendall(codec.dumps(p.request(rid, method, encoded)))
            while True:
                reply = self._read_line()
                if reply.get("id") == rid:
                    break
        except socket.timeout:
            self._close()
            raise p.ServiceError(f"the kernel did not answer {method} within {self.timeout:g} s") from None
        except OSError as exc:
            self._close()
            raise p.Disconnected(f"lost the kernel during {method}: {exc}") from None
        if "error" in reply:
            p.raise_remote(reply["error"] if isinstance(reply["error"], dict) else {})
        return reply.get("result")

    def _read_line(self) -> dict[str, Any]:
        assert self._sock is not None
        while b"\n" not in self._buffer:
            chunk = self._sock.recv(1 << 16)
            if not chunk:
                self._close()
                raise p.Disconnected("the kernel closed the connection")
            self._buffer += chunk
            if len(self._buffer) > p.MAX_LINE:
                self._close()
                raise p.Disconnected("a reply longer than the line limit")
        line, _, self._buffer = self._buffer.partition(b"\n")
        message = json.loads(line)
        if not isinstance(message, dict):
            raise p.Disconnected("a reply that is not an object")
        return message

    def _close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def close(self) -> None:
        with self._lock:
            self._close()




def connect_unix(path: Path, timeout: float) -> socket.socket:
    """A socket connected to the kernel listening on ``path``, with ``timeout`` set for what follows.

    A full listen queue is a kernel that listens and has not accepted yet. With Python's timeout set the
    socket is non-blocking, and ``connect`` then fails at once with EAGAIN: a burst of 300 clients saw 83
    such failures, each reported as "no kernel is listening" (issue 23). So the connect blocks, waiting in
    the OS for room in the queue, bounded by ``SO_SNDTIMEO`` (``timeout``); past it the kernel is busy, not
    absent (``ServiceError``). A refusal while the home's lock is held (a kernel that has its lock and not
    yet its socket: starting, or a stale socket file not yet replaced) is tried again for up to
    ``REFUSED_RETRY_S``; otherwise ``NotRunning`` at once."""
    refused_until = time.monotonic() + min(timeout, REFUSED_RETRY_S)
    pause = 0.01
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            _send_timeout(sock, timeout)
            sock.connect(str(path))
            _send_timeout(sock, 0.0)  # the bound was for the connect only (0: none)
        except OSError as exc:
            sock.close()
            if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                raise p.ServiceError(f"the kernel on {path} did not accept the connection within {timeout:g} s "
                                     "(it is busy)") from None
            if exc.errno == errno.ECONNREFUSED and time.monotonic() + pause < refused_until and _starting(path):
                time.sleep(pause)  # a real process between taking its lock and listening: a short back-off
                pause = min(pause * 2, 0.2)
                continue
            raise p.NotRunning(f"no kernel is listening on {path} ({exc.strerror or exc})") from None
        sock.settimeout(timeout)
        return sock


def _send_timeout(sock: socket.socket, seconds: float) -> None:
    """Bound a blocking ``connect`` (and send) on ``sock`` to ``seconds`` (0: no bound)."""
    whole = int(seconds)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", whole, int((seconds - whole) * 1e6)))


def _starting(path: Path) -> bool:
    """The socket file is there and its home's lock is held (the socket beside its home's lock, not in a
    runtime folder: there the home cannot be told from the socket's name)."""
    if path.name != "kernel.sock" or not path.exists():
        return False
    from .home import is_locked  # only on a refusal: not on ask's way to a running kernel

    return is_locked(path.parent)


def kernel_running(home: Path) -> bool:
    """Something listens on the home's socket (cheap: one connect)."""
    path = socket_path(home)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        sock.close()


@dataclass(frozen=True)
class Subscribed:
    """An events connection that said hello and subscribed: ``messages`` are what came up to and with
    the subscribe reply (the replay first); ``rest`` the bytes read past it, which the reader that takes
    the socket over reads first."""

    sock: socket.socket
    messages: tuple[dict[str, Any], ...]
    rest: bytes


def subscribe_blocking(path: Path, client: str, answers_leases: bool, since_seq: int | None = None,
                       timeout: float = CALL_TIMEOUT_S) -> Subscribed:
    """Open the events connection, say hello and subscribe, and read up to the subscribe reply, blocking
    (NotRunning when no kernel listens, the kernel's error when it refuses it). Every event after that
    reply is in ``rest`` or still in the socket: none is missed."""
    sock = connect_unix(path, timeout)
    buffer, messages = b"", []
    try:
        sock.sendall(codec.dumps(p.request(0, "hello", hello_params(client, answers_leases)))
                     + codec.dumps(p.request(-1, "subscribe", {"since_seq": since_seq})))
        while True:
            while b"\n" not in buffer:
                chunk = sock.recv(1 << 16)
                if not chunk:
                    raise p.NotRunning(f"the kernel on {path} closed the connection while subscribing")
                buffer += chunk
                if len(buffer) > p.MAX_LINE:
                    raise p.Disconnected("a reply longer than the line limit")
            line, _, buffer = buffer.partition(b"\n")
            try:
                message = json.loads(line)
            except ValueError:
                raise p.Disconnected("a reply that is not JSON") from None
            if not isinstance(message, dict):
                raise p.Disconnected("a reply that is not an object")
            if message.get("id") in (0, -1) and "error" in message:
                p.raise_remote(message["error"] if isinstance(message["error"], dict) else {})
            messages.append(message)
            if message.get("id") == -1:
                break
    except socket.timeout:
        sock.close()
        raise p.ServiceError(f"the kernel did not answer subscribe within {timeout:g} s") from None
    except OSError as exc:
        sock.close()
        raise p.Disconnected(f"lost the kernel while subscribing: {exc}") from None
    except BaseException:
        sock.close()
        raise
    sock.settimeout(None)
    return Subscribed(sock, tuple(messages), buffer)
