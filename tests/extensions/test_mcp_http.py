"""The kernel's MCP client over streamable HTTP: a huge reply is cut as it streams (and, over stdio, a
server's log lines reach its log), and a server that wants a sign-in nobody here can give says so in words.

The tools' server (tests/extensions/mcp_test_server.py) runs as a real process serving streamable HTTP
on loopback (JSON replies, the path the cap reads); the sign-in case is a small asyncio server speaking
just enough of the MCP authorization dance (401, protected-resource metadata, authorization-server
metadata, registration) for the SDK's OAuth provider to reach the point of asking for a browser.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from kernel.extensions.mcp_client import McpConnection, McpError
from kernel.extensions.mcp_config import McpServerConfig
from kernel.extensions.mcp_hooks import McpHooks
from kernel.extensions.mcp_stdio import LINE_MAX_BYTES

SERVER = Path(__file__).with_name("mcp_test_server.py")


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    proc = subprocess.Popen([sys.executable, str(SERVER), "--http", "0"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            text=True)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            found = re.search(r"Uvicorn running on (http://127\.0\.0\.1:\d+)", line)
            if found:
                break
        else:
            pytest.fail("the HTTP test server did not start")
        yield found.group(1) + "/mcp"
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


class Vault:
    def __init__(self) -> None:
        self.held: dict[str, str] = {}

    def get(self, name: str) -> str | None:
        return self.held.get(name)

    def set(self, name: str, value: str) -> str:
        self.held[name] = value
        return "memory"

    def delete(self, name: str) -> None:
        self.held.pop(name, None)


def test_a_huge_http_reply_is_cut_at_the_cap_as_it_streams(http_url, tmp_path):
    async def main() -> None:
        conn = McpConnection(McpServerConfig("web", url=http_url, timeout_s=60))
        try:
            content, _structured, is_error = await conn.call("huge", {"mb": 12})
            text = "\n".join(getattr(b, "text", "") for b in content)
            assert not is_error
            assert "cut at the cap as it streamed" in text and len(text) <= LINE_MAX_BYTES + 1000  # head + note
            assert (await conn.call("echo", {"text": "after"}))[0][0].text == "echo: after"  # still connected
        finally:
            await conn.close()

    asyncio.run(asyncio.wait_for(main(), 120))


def test_a_servers_log_messages_go_to_its_log(tmp_path):
    from .conftest import stdio_server

    async def main() -> None:
        log = tmp_path / "mcp-t.log"
        conn = McpConnection(stdio_server(), log_path=log)
        try:
            assert (await conn.call("chatty", {}))[0][0].text == "said"
        finally:
            await conn.close()
        assert "[info]  chatty was called" in log.read_text()

    asyncio.run(asyncio.wait_for(main(), 120))


async def _auth_server() -> tuple[asyncio.Server, str]:
    """401 on /mcp, with metadata and registration enough for the SDK to want a browser next."""
    base = ""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        length = int(m.group(1)) if (m := re.search(r"(?i)content-length: (\d+)", head)) else 0
        if length:
            await reader.readexactly(length)
        path = head.split()[1].split("?")[0]
        status, headers, body = 404, "", b""
        if path == "/mcp":
            status, headers = 401, f'WWW-Authenticate: Bearer resource_metadata="{base}/prm"\r\n'
        elif path == "/prm":
            status, body = 200, json.dumps({"resource": base + "/mcp", "authorization_servers": [base]}).encode()
        elif path == "/.well-known/oauth-authorization-server":
            status, body = 200, json.dumps({"issuer": base, "authorization_endpoint": base + "/authorize",
                                            "token_endpoint": base + "/token", "registration_endpoint": base + "/register",
                                            "response_types_supported": ["code"]}).encode()
        elif path == "/register":
            status, body = 201, json.dumps({"client_id": "c1", "redirect_uris": ["http://127.0.0.1/callback"],
                                            "token_endpoint_auth_method": "none"}).encode()
        writer.write(f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                     f"{headers}Connection: close\r\n\r\n".encode() + body)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    base = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    return server, base


def test_a_server_that_needs_sign_in_says_so_in_words_and_nothing_reaches_a_browser():
    async def main() -> None:
        server, base = await _auth_server()
        vault = Vault()
        conn = McpConnection(McpServerConfig("remote", url=base + "/mcp", timeout_s=30), hooks=McpHooks(vault=vault))
        try:
            with pytest.raises(McpError) as err:
                await conn.list_tools()
            assert "needs sign-in: run `agentdesk mcp login remote`" in err.value.message
            assert "Server returned an error response" not in err.value.message
            assert conn.needs_sign_in
            stored = json.loads(vault.held["mcp:oauth:remote"])  # the registration is kept in the key store
            assert stored["client"]["client_id"] == "c1" and "tokens" not in stored
        finally:
            await conn.close()
            server.close()
            await server.wait_closed()

    asyncio.run(asyncio.wait_for(main(), 60))
