"""The provider host's child side: build the adapter, serve requests until stdin closes.

Run by ``host_main`` inside the host process that ``process_host.ProcessProvider``
(the parent side) starts. The first line on stdin is ``{"init": {name,
api_key, base_url, timeout_s}}``; the adapter is built through the registry and
run on this process's own loop, and every stream is answered in the protocol
of ``host_protocol``. A fault in one stream is sent back as that stream's
error; it never ends the host.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, BinaryIO

from ..core.errors import ProviderError
from .base import ProviderRequest
from .host_protocol import LINE_LIMIT, decode_request, dumps, encode_error, encode_event
from .registry import build_adapter


async def serve(inp: BinaryIO, out: BinaryIO) -> None:
    """The host's main loop: build the adapter from the init line, then serve requests until EOF."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), inp)
    transport, _ = await loop.connect_write_pipe(asyncio.Protocol, out)

    def send(obj: dict[str, Any]) -> None:
        if not transport.is_closing():
            transport.write((dumps(obj) + "\n").encode())

    first = await reader.readline()
    if not first:
        return
    init = json.loads(first)["init"]
    adapter: Any = build_adapter(init["name"], init["api_key"], init["base_url"], init["timeout_s"])
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

