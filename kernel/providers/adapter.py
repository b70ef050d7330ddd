"""What the four SDK adapters share: lazy client, warming, closing.

An adapter implements ``_make_client()`` (import the SDK there, never at
module level) and ``_events(request, client)``, an async generator that does
the whole request: translate, call, assemble, map failures. It runs on the
caller's loop; the SDKs whose request building costs milliseconds (see
``catalog.ProviderInfo.out_of_process``) are kept off the desktop's loop by
running the whole adapter in a provider host process (``process_host``).
"""

from __future__ import annotations

import asyncio
import importlib
from typing import Any, AsyncIterator, Awaitable, Callable, Sequence

from ..core.daemon_thread import in_daemon_thread
from ..core.errors import ProviderError
from .base import ProviderRequest, StreamEnd, StreamEvent
from .failures import broken_stream, incomplete


class SdkAdapter:
    """Base of the adapters. Subclasses set ``name`` and implement the two hooks."""

    name: str = ""
    sdk_modules: tuple[str, ...] = ()

    def __init__(self, *, api_key: str, base_url: str | None = None, timeout_s: float = 120.0) -> None:
        self._api_key = api_key
        self._base_url = base_url
        self._timeout_s = timeout_s
        self._client_obj: Any = None
        self._warming = asyncio.Lock()

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        if self._client_obj is None:
            await self.warm()
        events = self._events(request, self._client())
        try:
            async for event in events:
                yield event
        finally:
            await events.aclose()  # type: ignore[attr-defined]

    async def warm(self) -> None:
        """Import the SDK and build the client now, in a daemon thread: importing an SDK takes
        0.1-3 s and building a client (TLS context, CA bundle) a few hundred ms more, none of
        which may stall the caller's loop, nor keep a process that is stopping from exiting
        (``kernel.core.daemon_thread``). Safe to call more than once, and concurrently."""
        async with self._warming:
            if self._client_obj is None:
                await in_daemon_thread(self._warm_up, f"{self.name or 'provider'}-warm-up")

    def _warm_up(self) -> None:
        _import_all(self.sdk_modules)
        self._client()

    async def aclose(self) -> None:
        client, self._client_obj = self._client_obj, None
        if client is not None:
            await self._close_client(client)

    def _client(self) -> Any:
        """The SDK client, made on first use on the loop that will use it."""
        if self._client_obj is None:
            self._client_obj = self._make_client()
        return self._client_obj

    def _make_client(self) -> Any:
        raise NotImplementedError

    async def _close_client(self, client: Any) -> None:
        await client.close()

    def _events(self, request: ProviderRequest, client: Any) -> AsyncIterator[StreamEvent]:
        raise NotImplementedError


def _import_all(names: tuple[str, ...]) -> None:
    for name in names:
        importlib.import_module(name)


async def pump(name: str, open_stream: Callable[[], Awaitable[Any]], reply: Any,
               caught: tuple[type[BaseException], ...], fail: Callable[[BaseException, bool], Exception], *,
               check: Callable[[Any, bool], None] | None = None,
               tail: Callable[[], Sequence[StreamEvent]] = tuple) -> AsyncIterator[StreamEvent]:
    """The skeleton every adapter's stream shares.

    Open the SDK stream, give each raw event to ``check`` (which may raise)
    and to ``reply.feed`` (which turns it into kernel events), map the SDK's
    exceptions (``caught``) through ``fail(exc, started)``, always close the
    stream, and end with ``StreamEnd`` — or ``incomplete`` when the reply had no
    stop reason. ``tail`` gives events due just before the end (usage reported last).
    """
    started = False
    stream: Any = None
    try:
        stream = await open_stream()
        async for raw in stream:
            if check is not None:
                check(raw, started)
            for out in reply.feed(raw):
                started = True
                yield out
    except ProviderError as exc:  # ``check``'s own: an error event the SDK yields instead of raising
        raise with_request_id(exc, exc, stream, reply)
    except caught as exc:
        raise with_request_id(fail(exc, started), exc, stream, reply) from exc
    except RecursionError as exc:  # an SDK parsing a reply nested deeper than Python's recursion limit
        raise broken_stream(name, "the reply was nested too deeply to read", started=started) from exc
    finally:
        if stream is not None:
            close = getattr(stream, "close", None) or stream.aclose
            await close()
    if reply.stop_reason is None:
        raise incomplete(name)
    for out in tail():
        yield out
    yield StreamEnd(reply.stop_reason, request_id(stream, getattr(reply, "request_id", None)), served_model(reply))


REQUEST_ID_HEADERS = ("request-id", "x-request-id")  # Anthropic; OpenAI (and a Gemini error's, when sent)
REQUEST_ID_MAX = 200


def with_request_id(error: Exception, exc: BaseException, stream: Any, reply: Any) -> Exception:
    """A failed request keeps its id too: the SDK error's (``APIStatusError.request_id``, else the
    error reply's headers: google-genai's ``APIError.response``), else the stream's that broke."""
    if isinstance(error, ProviderError) and error.request_id is None:
        error.request_id = (request_id(exc, getattr(exc, "request_id", None))
                            or request_id(stream, getattr(reply, "request_id", None)))
    if isinstance(error, ProviderError) and error.served_model is None:
        error.served_model = served_model(reply)
    return error


MODEL_NAME_MAX = 200


def served_model(reply: Any) -> str | None:
    """The model the reply named (each adapter's ``reply.model``). Hostile input: only a short printable word."""
    value = getattr(reply, "model", None)
    if isinstance(value, str) and 0 < len(value) <= MODEL_NAME_MAX and value.isprintable() and " " not in value:
        return value
    return None


def request_id(stream: Any, body_id: Any) -> str | None:
    """The provider's id of a request: its request-id header (what support asks for), else the id
    the reply carried (response.id, Gemini's responseId). Hostile input: only a short printable word."""
    headers = getattr(getattr(stream, "response", None), "headers", None)
    found = next((headers.get(h) for h in REQUEST_ID_HEADERS if headers is not None and headers.get(h)), None)
    for value in (found, body_id):
        if isinstance(value, str) and 0 < len(value) <= REQUEST_ID_MAX and value.isprintable() and " " not in value:
            return value
    return None
