"""One server-sent event larger than the 4 MiB reply cap, from a streamable-HTTP MCP server: that call fails
in words naming the cap, the rest of the event is never held (memory stays bounded), and the same session
answers the next call (before: the SDK called it "connection closed", the connection dropped its session
and told the model the server had stopped).

The server is a small aiohttp app in the test's own loop speaking just enough streamable HTTP (a session
id, JSON replies to set-up, SSE replies to calls).
"""

from __future__ import annotations

import asyncio
import json
import tracemalloc

from aiohttp import web

from kernel.extensions.mcp_client import McpConnection, McpError
from kernel.extensions.mcp_config import McpServerConfig
from kernel.extensions.mcp_http import OVERSIZED_EVENT
from kernel.extensions.mcp_stdio import LINE_MAX_BYTES

HUGE = 64 << 20  # what the server would send in one event if the client kept reading
CHUNK = b"y" * (256 << 10)


class SseServer:
    def __init__(self) -> None:
        self.initialized = 0
        self.sent = 0  # bytes of the huge event written before the client went away

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if request.method == "DELETE":
            return web.Response(status=200)
        if request.method != "POST":
            return web.Response(status=405)  # no stream of the server's own
        msg = await request.json()
        if "id" not in msg:
            return web.Response(status=202)
        method, params = msg["method"], msg.get("params") or {}
        if method == "initialize":
            self.initialized += 1
            result = {"protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": "sse", "version": "1"}}
            return web.json_response({"jsonrpc": "2.0", "id": msg["id"], "result": result},
                                     headers={"mcp-session-id": "s1"})
        if method == "tools/list":
            tools = [{"name": name, "inputSchema": {"type": "object"}} for name in ("huge", "echo")]
            return web.json_response({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": tools}})
        if method != "tools/call":
            return web.json_response({"jsonrpc": "2.0", "id": msg["id"],
                                      "error": {"code": -32601, "message": "no such method"}})
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        if params["name"] == "echo":
            reply = {"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [{"type": "text", "text": "after"}]}}
            await response.write(f"event: message\ndata: {json.dumps(reply)}\n\n".encode())
            return response
        head = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [{"type": "text", "text": ""}]}})
        await response.write(f"event: message\ndata: {head[:-4]}".encode())  # ... "text": "yyyy… never ends
        try:
            while self.sent < HUGE:
                await response.write(CHUNK)
                self.sent += len(CHUNK)
        except (ConnectionError, RuntimeError):  # the client went away
            pass
        return response


async def _serve(server: SseServer) -> tuple[web.AppRunner, str]:
    app = web.Application()
    app.router.add_route("*", "/mcp", server.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}/mcp"


def test_one_sse_event_over_the_cap_fails_that_call_in_words_and_the_session_goes_on():
    async def main() -> None:
        server = SseServer()
        runner, url = await _serve(server)
        conn = McpConnection(McpServerConfig("sse", url=url, timeout_s=60))
        try:
            assert (await conn.call("echo", {}))[0][0].text == "after"
            tracemalloc.start()
            try:
                try:
                    await conn.call("huge", {})
                    raise AssertionError("an event over the cap was taken")
                except McpError as err:
                    message = err.message
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            assert message == f"the MCP server sse failed while calling huge: MCPError: {OVERSIZED_EVENT}"
            assert "stopped" not in message and "4,194,304 bytes (4 MiB)" in message
            assert server.sent < HUGE  # the client stopped reading near the cap, not at the end
            assert peak < 3 * LINE_MAX_BYTES  # the event as far as the cap, the text decoded from it, a chunk
            assert (await conn.call("echo", {}))[0][0].text == "after"  # same session, still usable
            assert server.initialized == 1 and conn.starts == 1
        finally:
            await conn.close()
            await runner.cleanup()

    asyncio.run(asyncio.wait_for(main(), 120))

