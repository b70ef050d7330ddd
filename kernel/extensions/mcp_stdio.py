"""The stdio transport with a cap on each line the server writes, cut as it streams.

A stdio server sends one JSON-RPC message per line, and the SDK's transport (``mcp.client.stdio``)
holds a line whole before parsing it, joining each chunk onto the growing string: a 64 MB result
took past any timeout (measured 2026-12-03: over 15 s, never finished, where the output cap keeps
100,000 characters of it). Here a line is kept only up to ``LINE_MAX_BYTES``; the rest of it is
read and dropped as it arrives, so a hostile or careless reply costs its transfer and no more.
A line cut so is answered to its request as a result holding the text that fits (its first text
block, salvaged from the head) and a note that says the reply was cut and how large it was; a
cut line that is not a reply (a notification) is dropped. Everything else is the SDK's own
transport, process handling and shutdown included (``capped_stdio_client`` mirrors its
``stdio_client`` of the pinned version, with this reader: tests/extensions/test_mcp_huge_result.py).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TextIO

LINE_MAX_BYTES = 4 << 20  # a line (one message) kept whole up to 4 MiB: the output cap keeps 100,000 characters
_TAIL = 512
_ID_HEAD = re.compile(rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')
_ID_TAIL = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")\s*}\s*$')
_TEXT = re.compile(rb'"text"\s*:\s*"')
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Oversized:
    """A line longer than the limit: its first ``limit`` bytes, its last bytes and its whole size."""

    head: bytes
    tail: bytes
    size: int


class LineReader:
    """Bytes in, whole lines (or ``Oversized``) out; never holds more than ``limit`` bytes of one line."""

    def __init__(self, limit: int = LINE_MAX_BYTES) -> None:
        self._limit = limit
        self._parts: list[bytes] = []
        self._held = 0
        self._size = 0
        self._tail = b""

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        out: list[bytes | Oversized] = []
        while chunk:
            end = chunk.find(b"\n")
            piece, chunk = (chunk, b"") if end < 0 else (chunk[:end], chunk[end + 1:])
            self._take(piece)
            if end >= 0:
                out.append(self._line())
        return out

    def _take(self, piece: bytes) -> None:
        self._size += len(piece)
        room = self._limit - self._held
        if room > 0:
            self._parts.append(piece[:room])
            self._held += min(room, len(piece))
        if self._size > self._limit:
            self._tail = (self._tail + piece[-_TAIL:])[-_TAIL:]

    def _line(self) -> bytes | Oversized:
        head = b"".join(self._parts)
        line: bytes | Oversized = head if self._size <= self._limit else Oversized(head, self._tail, self._size)
        self._parts, self._held, self._size, self._tail = [], 0, 0, b""
        return line


def _salvaged_text(head: bytes) -> str:
    """The first text block's string as far as ``head`` holds it ("" when there is none)."""
    found = _TEXT.search(head)
    if found is None:
        return ""
    raw = head[found.end():].decode("utf-8", "ignore")
    try:
        text, _ = json.JSONDecoder().raw_decode('"' + raw)  # the string closed inside the head
        return str(text)
    except ValueError:
        pass
    for trim in range(0, 7):  # cut inside an escape (\\, \u12): drop up to six characters and close it
        try:
            return str(json.loads('"' + raw[: len(raw) - trim] + '"'))
        except ValueError:
            continue
    return ""


CUT_META = "agentdesk/cut"  # in a cut reply's _meta, with the connection's token (a server cannot forge it)


def cut_message(line: Oversized, token: str) -> Any:
    """A reply for the request an oversized line answered (a result with what fits and a note), or None
    when the line names no request id (a notification: dropped). It is flagged an error, which keeps the
    SDK from checking it against the tool's output schema (it cannot fit), with ``_meta`` holding ``token``
    so the connection reads it as the result it is (``is_cut``)."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    found = _ID_HEAD.search(line.head[:512]) or _ID_TAIL.search(line.tail)
    if found is None:
        log.warning("an MCP server sent a %d-byte message that answers no request; dropped", line.size)
        return None
    note = (f"[cut at the cap as it streamed: the server's reply was {line.size:,} bytes, more than the "
            f"{LINE_MAX_BYTES:,} a reply may be; the rest was not kept]")
    blocks = [{"type": "text", "text": t} for t in (_salvaged_text(line.head), note) if t]
    message = {"jsonrpc": "2.0", "id": json.loads(found.group(1)), "result": {
        "content": blocks, "isError": True, "resultType": "complete", "_meta": {CUT_META: token}}}
    return SessionMessage(types.jsonrpc_message_adapter.validate_python(message))


def is_cut(result: Any, token: str) -> bool:
    """Whether a call result is a reply this transport cut (``cut_message`` with ``token``)."""
    meta = getattr(result, "meta", None)
    return isinstance(meta, dict) and meta.get(CUT_META) == token


@asynccontextmanager
async def capped_stdio_client(server: Any, errlog: TextIO, cut_token: str) -> AsyncGenerator[Any, None]:
    """``mcp.client.stdio.stdio_client`` with each line capped (``LineReader``): same process start, streams
    and shutdown, from the SDK's own helpers."""
    import anyio
    import anyio.lowlevel
    from mcp.client import stdio as sdk
    from mcp.shared.message import SessionMessage

    command = await sdk._get_executable_command(server.command)
    process = await sdk._create_platform_compatible_process(
        command=command, args=server.args, env=sdk.get_default_environment() | (server.env or {}), errlog=errlog,
        cwd=server.cwd)
    read_stream_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_stream_reader = anyio.create_memory_object_stream[SessionMessage](0)
    shutting_down = False
    writer_done = anyio.Event()

    async def stdout_reader() -> None:
        assert process.stdout is not None
        reader = LineReader()
        try:
            async with read_stream_writer:
                try:
                    async for chunk in process.stdout:
                        for line in reader.feed(chunk):
                            if isinstance(line, Oversized):
                                message = cut_message(line, cut_token)
                            else:
                                message = sdk._parse_line(line.decode(server.encoding, "replace"))
                            if message is None:
                                continue
                            try:
                                await read_stream_writer.send(message)
                            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                                return
                finally:
                    await sdk._drain_stdout(process)
        except anyio.ClosedResourceError:
            pass
        except (anyio.BrokenResourceError, ConnectionError):
            if not shutting_down:
                log.exception("reading from the MCP server's stdout failed mid-session")

    async def stdin_writer() -> None:
        assert process.stdin is not None
        try:
            async with write_stream_reader:
                async for session_message in write_stream_reader:
                    text = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((text + "\n").encode(server.encoding, server.encoding_error_handler))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_stream_writer.aclose()
        finally:
            writer_done.set()

    async def shutdown() -> None:
        read_stream.close()
        write_stream.close()
        with anyio.move_on_after(sdk._WRITER_FLUSH_TIMEOUT) as flush_scope:
            await writer_done.wait()
        if flush_scope.cancelled_caught:
            await anyio.lowlevel.cancel_shielded_checkpoint()
        await sdk._stop_server_process(process)
        await sdk._aclose_all(read_stream, write_stream, read_stream_writer, write_stream_reader)
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(stdout_reader)
        tg.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            shutting_down = True
            with anyio.CancelScope(shield=True):
                await shutdown()
            tg.cancel_scope.cancel()
    await anyio.lowlevel.cancel_shielded_checkpoint()
