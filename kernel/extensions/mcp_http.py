"""The streamable-HTTP transport with the same cap on a reply as the stdio one, cut as it streams.

The SDK's transport reads a JSON reply whole (``response.aread()``) before parsing it, so a 100 MB
result costs 100 MB of memory and, on a slow link, runs into the call's timeout instead of being
cut at the output cap. Here a JSON body is read chunk by chunk and kept only up to
``mcp_stdio.LINE_MAX_BYTES`` (4 MiB); the rest is read and dropped as it arrives, and the reply
is answered as a result holding what fits and a note saying it was cut (``mcp_stdio.cut_message``,
the same marker the stdio transport uses, so the connection reads it the same way). An SSE event
is capped by the SDK itself (``max_sse_event_size``, set to the same 4 MiB; its parser stops at the
cap, so at most ~4 MiB is held): one larger fails its request at once. The SDK reports that as
"connection closed", which made the connection drop its session and start a new one on the next
call, and told the model the server had stopped; here it is that one call's error, in words naming
the cap (``OVERSIZED_EVENT``), and the session goes on. Everything else is the SDK's transport
(``capped_http_client`` mirrors its ``streamable_http_client`` of the pinned version).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

from .mcp_stdio import LINE_MAX_BYTES, LineReader, Oversized, cut_message

OVERSIZED_EVENT = (f"its reply was one server-sent event of more than {LINE_MAX_BYTES:,} bytes (4 MiB), the most "
                   "one reply may be; it was not read. Ask for less at a time (a smaller range, a filter, a page)")


def _transport_class() -> Any:
    from mcp.client.streamable_http import StreamableHTTPTransport
    from mcp_types import CONNECTION_CLOSED, INTERNAL_ERROR

    class CappedTransport(StreamableHTTPTransport):
        cut_token = ""

        async def _handle_json_response(self, response: Any, read_stream_writer: Any, *, request_id: Any) -> None:
            reader = LineReader(LINE_MAX_BYTES)
            async for chunk in response.aiter_bytes():
                reader.feed(chunk.replace(b"\n", b" "))
            line = reader.feed(b"\n")[0]
            if isinstance(line, Oversized):
                message = cut_message(line, self.cut_token)
                if message is not None:
                    await read_stream_writer.send(message)
                    return
                line = b"{}"
            await super()._handle_json_response(_Read(response, line), read_stream_writer,  # type: ignore[arg-type]
                                                request_id=request_id)

        async def _resolve_abandoned_request(self, read_stream_writer: Any, request_id: Any, message: str, *,
                                             code: int = CONNECTION_CLOSED) -> None:
            if f"exceeded the {self.max_sse_event_size} byte limit" in message:  # httpx2's SSEError, the SDK's cap
                message, code = OVERSIZED_EVENT, INTERNAL_ERROR  # this call failed; the connection did not
            await super()._resolve_abandoned_request(read_stream_writer, request_id, message, code=code)

    return CappedTransport


class _Read:
    """A response whose body was already read (``aread`` returns it)."""

    def __init__(self, response: Any, body: bytes) -> None:
        self._response = response
        self._body = body

    async def aread(self) -> bytes:
        return self._body

    def __getattr__(self, name: str) -> Any:
        return getattr(self._response, name)


@asynccontextmanager
async def capped_http_client(url: str, http_client: Any, cut_token: str) -> AsyncGenerator[Any, None]:
    """``mcp.client.streamable_http.streamable_http_client`` with each JSON reply capped; ``http_client`` is
    entered and closed here."""
    import anyio
    from mcp.client.streamable_http import create_context_streams, resync_tracer
    from mcp.shared.message import SessionMessage

    transport = _transport_class()(url, max_sse_event_size=LINE_MAX_BYTES)
    transport.cut_token = cut_token
    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(http_client)
        read_stream_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
        write_stream, write_stream_reader = create_context_streams[SessionMessage](0)
        async with read_stream_writer, read_stream, write_stream, write_stream_reader, \
                anyio.create_task_group() as tg:
            def start_get_stream() -> None:
                tg.start_soon(transport.handle_get_stream, client, read_stream_writer)

            tg.start_soon(transport.post_writer, client, write_stream_reader, read_stream_writer, write_stream,
                          start_get_stream, tg)
            try:
                yield read_stream, write_stream
            finally:
                if transport.session_id:
                    await transport.terminate_session(client)
                tg.cancel_scope.cancel()
        await resync_tracer()
