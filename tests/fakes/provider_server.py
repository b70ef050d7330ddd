"""A loopback fake LLM provider that the real SDKs talk to.

One scripted queue of provider-neutral `Turn`s is served over four wire
protocols (Anthropic Messages, OpenAI Responses, OpenAI Chat Completions,
Gemini streamGenerateContent). Each model request consumes the next turn.
See README.md in this package.
"""

from __future__ import annotations

import json
import os
import re
import select
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from urllib.parse import parse_qs, urlsplit

from . import enc_anthropic, enc_chat, enc_gemini, enc_responses
from .sse import dumps
from .wire_images import WireImage, WireImageError, wire_images
from .validate import problem
from .turns import Cut, ErrorEvent, HttpError, Text, Turn, new_id, split_text

__all__ = ["FakeProviderServer", "Request", "PROTOCOLS"]

PROTOCOLS: dict[str, ModuleType] = {
    m.NAME: m for m in (enc_anthropic, enc_responses, enc_chat, enc_gemini)
}

_GEMINI_PATH = re.compile(r"^/(v1|v1beta|v1alpha)/models/([^/:]+):(streamGenerateContent|generateContent)$")
_REQUEST_ID_HEADERS = {"anthropic": "request-id", "openai_responses": "x-request-id", "openai_chat": "x-request-id"}
# An error reply carries its request id in a header for every protocol (Gemini's success replies name it in
# the body's responseId instead; whether Google's own error replies send one is not documented).
_ERROR_ID_HEADERS = {**_REQUEST_ID_HEADERS, "gemini": "x-request-id"}
_REASONS = {200: "OK", 401: "Unauthorized", 404: "Not Found", 429: "Too Many Requests",
            500: "Internal Server Error", 503: "Service Unavailable", 529: "Overloaded"}


@dataclass(frozen=True)
class Request:
    """One request as the fake received it. Header names are lower-cased."""

    protocol: str
    path: str
    headers: dict
    body: dict
    received_at: float
    images: tuple[WireImage, ...] = ()  # the pictures in the body, read as the real API reads them
    raw: bytes = b""  # the body's bytes as sent


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeProvider/1.0"

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.fake._track(self.connection, add=True)  # type: ignore[attr-defined]

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self.server.fake._track(self.connection, add=False)  # type: ignore[attr-defined]

    def do_POST(self) -> None:  # noqa: N802
        self.server.fake._handle(self)  # type: ignore[attr-defined]

    def do_GET(self) -> None:  # noqa: N802
        self.server.fake._handle(self)  # type: ignore[attr-defined]

    def log_message(self, format: str, *args) -> None:  # noqa: A002
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # close() wakes and joins handlers itself
    request_queue_size = 128
    fake: "FakeProviderServer"


class _Gone(Exception):
    """The client went away or the server is closing."""


class FakeProviderServer:
    """Strict scripted fake: every turn must be used, every request must have a turn."""

    def __init__(self, expected_key: str = "test-key", known_models: set[str] | None = None,
                 validate: bool = True) -> None:
        self.expected_key = expected_key
        self.validate = validate  # refuse what the real API refuses (tests/fakes/validate.py) with its 400
        self.known_models = set(known_models) if known_models is not None else None
        self._lock = threading.Lock()
        self._turns: deque[Turn] = deque()
        self._requests: list[Request] = []
        self._finished: list[float] = []
        self._request_ids: list[str] = []
        self._error_ids: list[str] = []
        self._failures: list[str] = []
        self._image_rejections: list[str] = []
        self._refused: list[str] = []
        self._stop = threading.Event()
        self._streaming = 0
        self._idle = threading.Condition(self._lock)
        self._conns: set[socket.socket] = set()
        self._hold: tuple[threading.Event, float] | None = None
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> "FakeProviderServer":
        if self._server is not None:
            return self
        self._stop.clear()
        srv = _Server(("127.0.0.1", 0), _Handler)
        srv.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        srv.fake = self
        self._server = srv
        self._thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-provider", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        srv = self._server
        if srv is None:
            return
        self._stop.set()
        srv.shutdown()
        srv.server_close()
        with self._lock:
            conns = list(self._conns)
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None

    def __enter__(self) -> "FakeProviderServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # ----------------------------------------------------------------- addresses
    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeProviderServer is not started")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    @property
    def openai_base_url(self) -> str:
        return self.url + "/v1"

    @property
    def gemini_base_url(self) -> str:
        return self.url

    # ----------------------------------------------------------------- scripting
    def script(self, *turns: Turn) -> "FakeProviderServer":
        for t in turns:
            if not isinstance(t, Turn):
                raise TypeError(f"script() takes Turn objects, not {type(t).__name__}")
        with self._lock:
            self._turns.extend(turns)
        return self

    def hold_after_first_text(self, release: threading.Event, timeout: float = 10.0) -> "FakeProviderServer":
        """Hold every streamed reply just after its first text delta until `release` is set.

        For tests that must see two replies in flight at once without relying on timing: a
        test sets `release` once its client has the first delta of every stream. The wait is
        bounded by `timeout`; running out of it is recorded as a failure (see `assert_done`)
        and the reply then goes on, so a client that never gets there fails instead of hanging."""
        with self._lock:
            self._hold = (release, timeout)
        return self

    @property
    def requests(self) -> list[Request]:
        with self._lock:
            return list(self._requests)

    @property
    def request_ids(self) -> list[str]:
        """The provider request id of each streamed reply, in order (``request-id`` header for
        Anthropic, ``x-request-id`` for OpenAI, the ``responseId`` for Gemini)."""
        with self._lock:
            return list(self._request_ids)

    @property
    def error_request_ids(self) -> list[str]:
        """The request id each scripted ``HttpError`` reply sent in its header, in order."""
        with self._lock:
            return list(self._error_ids)

    @property
    def replies_finished_at(self) -> list[float]:
        with self._lock:
            return list(self._finished)

    @property
    def image_rejections(self) -> list[str]:
        """Why each request refused for its pictures (a 400, as the real API answers) was refused."""
        with self._lock:
            return list(self._image_rejections)

    @property
    def pending_turns(self) -> int:
        with self._lock:
            return len(self._turns)

    @property
    def refused(self) -> list[str]:
        """Why each request the real API would refuse was answered 400 (tests/fakes/validate.py)."""
        with self._lock:
            return list(self._refused)

    @property
    def failures(self) -> list[str]:
        with self._lock:
            return list(self._failures)

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Block until no streamed reply is being written (e.g. after a client hung up mid-stream)."""
        with self._lock:
            return self._idle.wait_for(lambda: self._streaming == 0, timeout)

    def assert_done(self) -> None:
        with self._lock:
            problems = list(self._failures)
            if self._turns:
                problems.append(f"{len(self._turns)} scripted turn(s) never requested: {list(self._turns)!r}")
        if problems:
            raise AssertionError("FakeProviderServer: " + "; ".join(problems))

    # ----------------------------------------------------------------- internals
    def _track(self, conn: socket.socket, add: bool) -> None:
        with self._lock:
            if add:
                self._conns.add(conn)
            else:
                self._conns.discard(conn)

    def _handle(self, h: _Handler) -> None:
        received = time.perf_counter()
        parts = urlsplit(h.path)
        path, query = parts.path, parse_qs(parts.query)
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"__unparsed__": raw.decode("utf-8", "replace")}
        if not isinstance(body, dict):
            body = {"__body__": body}
        headers = {k.lower(): v for k, v in h.headers.items()}

        protocol, model, streaming = self._route(h.command, path, body)
        images: list[WireImage] = []
        refused: str | None = None
        if protocol is not None:
            try:
                images = wire_images(protocol, body)
            except WireImageError as exc:
                refused = str(exc)
        with self._lock:
            self._requests.append(Request(protocol or "unknown", h.path, headers, body, received, tuple(images), raw))
        if protocol is None:
            msg = f"fake provider: no route for {h.command} {h.path}"
            with self._lock:
                self._failures.append(msg)
            self._send_json(h, 404, {"error": {"message": msg}})
            return
        enc = PROTOCOLS[protocol]

        if self._key_of(protocol, headers, query) != self.expected_key:
            self._send_json(h, 401, enc.error_body(401, "invalid x-api-key / API key not valid",
                                                   None if protocol != "gemini" else "UNAUTHENTICATED"))
            return
        if self.known_models is not None and model not in self.known_models:
            self._send_json(h, 404, enc.error_body(404, f"model: {model} not found"))
            return
        if refused is not None:  # as the real API: a 400 that consumes no turn
            with self._lock:
                self._image_rejections.append(refused)
            self._send_json(h, 400, enc.error_body(400, refused))
            return

        refused = problem(protocol, body) if self.validate else None
        if refused is not None:  # what the real API answers with a 400, before consuming a turn
            with self._lock:
                self._refused.append(refused)
            self._send_json(h, 400, enc.error_body(400, refused, None if protocol != "gemini" else "INVALID_ARGUMENT"))
            return

        with self._lock:
            turn = self._turns.popleft() if self._turns else None
            if turn is None:
                msg = f"unexpected {protocol} request #{len(self._requests)} ({h.path}): no scripted turn left"
                self._failures.append(msg)
        if turn is None:
            self._send_json(h, 500, enc.error_body(500, "FakeProviderServer: " + msg))
            return

        fault = turn.fault
        if isinstance(fault, HttpError):
            extra = {}
            if fault.retry_after is not None:
                ra = fault.retry_after
                extra["retry-after"] = str(int(ra)) if float(ra).is_integer() else repr(float(ra))
                extra["retry-after-ms"] = str(int(round(ra * 1000)))
            rid = turn.request_id or new_id("req_err_")
            with self._lock:
                self._error_ids.append(rid)
            extra[_ERROR_ID_HEADERS[enc.NAME]] = rid
            self._send_json(h, fault.status, enc.error_body(fault.status, fault.message, fault.kind), extra)
            return
        if not streaming:
            msg = f"fake provider only streams; got a non-streaming {protocol} request"
            with self._lock:
                self._failures.append(msg)
            self._send_json(h, 400, enc.error_body(400, msg))
            return
        with self._lock:
            self._streaming += 1
        try:
            self._stream(h, enc, turn, turn.served_model or model or "fake-model", body)
        except (_Gone, OSError):
            h.close_connection = True
        finally:
            with self._lock:
                self._streaming -= 1
                self._idle.notify_all()

    @staticmethod
    def _route(method: str, path: str, body: dict) -> tuple[str | None, str | None, bool]:
        if method != "POST":
            return None, None, False
        model = body.get("model")
        stream = bool(body.get("stream"))
        if path == "/v1/messages":
            return "anthropic", model, stream
        if path == "/v1/responses":
            return "openai_responses", model, stream
        if path == "/v1/chat/completions":
            return "openai_chat", model, stream
        m = _GEMINI_PATH.match(path)
        if m:
            return "gemini", m.group(2), m.group(3) == "streamGenerateContent"
        return None, None, False

    @staticmethod
    def _key_of(protocol: str, headers: dict, query: dict) -> str | None:
        auth = headers.get("authorization", "")
        bearer = auth[7:] if auth.lower().startswith("bearer ") else None
        if protocol == "anthropic":
            return headers.get("x-api-key") or bearer
        if protocol == "gemini":
            return headers.get("x-goog-api-key") or (query.get("key") or [None])[0]
        return bearer

    def _send_json(self, h: _Handler, status: int, obj: dict, extra: dict | None = None) -> None:
        data = dumps(obj).encode()
        head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}",
                "Content-Type: application/json",
                f"Content-Length: {len(data)}"]
        head += [f"{k}: {v}" for k, v in (extra or {}).items()]
        try:
            h.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        except OSError:
            h.close_connection = True

    def _stream(self, h: _Handler, enc: ModuleType, turn: Turn, model: str, body: dict) -> None:
        turn = replace(turn, request_id=turn.request_id or new_id("req_"))
        with self._lock:
            self._request_ids.append(turn.request_id)
        header = _REQUEST_ID_HEADERS.get(enc.NAME)
        events = enc.events(turn, model, body)
        fault = turn.fault
        cut: Cut | None = fault if isinstance(fault, Cut) else None
        if isinstance(fault, ErrorEvent):
            kept = events[: fault.after_events]
            events = kept + enc.error_frames(fault.message, len(kept))
        elif cut is not None:
            events = events[: cut.after_events]
        hard_cut = cut is not None and cut.mode in ("abort", "reset")
        head = ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
                "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n"
                + (f"{header}: {turn.request_id}\r\n" if header else "")
                + ("Connection: close\r\n" if hard_cut else "") + "\r\n").encode()
        tail = b"" if hard_cut else b"0\r\n\r\n"
        sock: socket.socket = h.connection
        with self._lock:
            hold = self._hold
        hold_at = _first_text_event(events, turn) if hold is not None else None
        # The finish time is noted just before the last bytes go out: once they are out the
        # client may already be sending its next request, and the order must hold.
        if turn.delay <= 0 and hold_at is None:
            self._note_finished()
            sock.sendall(head + b"".join(_chunk(e) for e in events) + tail)
        else:
            sock.sendall(head)
            for i, e in enumerate(events):
                if i:
                    self._pause(sock, turn.delay)
                if i == len(events) - 1 and not tail:
                    self._note_finished()
                sock.sendall(_chunk(e))
                if i == hold_at:
                    assert hold is not None
                    self._wait_release(sock, *hold)
            if tail:
                self._pause(sock, turn.delay)
                self._note_finished()
                sock.sendall(tail)
        if hard_cut:
            h.close_connection = True
            if cut.mode == "abort":
                sock.shutdown(socket.SHUT_RDWR)
            else:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                os.close(sock.detach())

    def _note_finished(self) -> None:
        with self._lock:
            self._finished.append(time.perf_counter())

    def _wait_release(self, sock: socket.socket, release: threading.Event, timeout: float) -> None:
        """Wait (see `hold_after_first_text`) until `release` is set, at most `timeout`."""
        deadline = time.monotonic() + timeout
        while not release.is_set():
            if time.monotonic() >= deadline:
                with self._lock:
                    self._failures.append(f"a reply held after its first text delta was not released in {timeout} s")
                return
            self._pause(sock, 0.01)

    def _pause(self, sock: socket.socket, delay: float) -> None:
        """Sleep `delay`, but give up at once if the server closes or the client hangs up."""
        deadline = time.monotonic() + delay
        while True:
            left = deadline - time.monotonic()
            if self._stop.is_set():
                raise _Gone()
            if left <= 0:
                return
            # A readable socket mid-response means EOF/RST from the client.
            r, _, _ = select.select([sock], [], [], min(left, 0.05))
            if not r:
                continue
            try:
                if sock.recv(1, socket.MSG_PEEK) == b"":
                    raise _Gone()
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                raise _Gone() from None
            # Data (a pipelined request) rather than EOF: just sleep.
            if self._stop.wait(min(max(deadline - time.monotonic(), 0), 0.05)):
                raise _Gone()


def _first_text_event(events: list[bytes], turn: Turn) -> int | None:
    """The index of the event carrying the turn's first text delta (whatever the protocol), if any."""
    text = next((p for p in turn.parts if isinstance(p, Text) and p.text), None)
    if text is None:
        return None
    needle = dumps(split_text(text.text, text.chunks)[0]).encode()
    return next((i for i, e in enumerate(events) if needle in e), None)


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)
