"""Settings → MCP servers → Sign in runs the sign-in of ``agentdesk mcp login`` (issue 29): against a local
OAuth-protected server (a 401 naming its protected-resource metadata, authorization-server metadata,
dynamic client registration), the button starts the SDK's flow and the browser is sent to the
authorization endpoint with PKCE and the loopback redirect; nothing opens before the button is pressed."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from desktop.extension_pages import McpServersPage
from kernel.extensions.mcp_config import McpServerConfig, McpStore


class _OAuthServer(BaseHTTPRequestHandler):
    """An MCP endpoint that needs sign-in, with just enough OAuth metadata for a client to start one."""

    def log_message(self, *_args: object) -> None:
        pass

    def _json(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        path = urlsplit(self.path).path
        if path.startswith("/.well-known/oauth-protected-resource"):
            self._json(200, {"resource": base + "/mcp", "authorization_servers": [base]})
        elif path.startswith("/.well-known/oauth-authorization-server"):
            self._json(200, {"issuer": base, "authorization_endpoint": base + "/authorize",
                             "token_endpoint": base + "/token", "registration_endpoint": base + "/register",
                             "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"],
                             "grant_types_supported": ["authorization_code", "refresh_token"],
                             "token_endpoint_auth_methods_supported": ["none"]})
        elif path == "/mcp":
            self._unauthorized(base)
        else:
            self._json(404, {"error": "not_found"})

    def do_POST(self) -> None:  # noqa: N802
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if self.path == "/register":
            self._json(201, {**body, "client_id": "agentdesk-client-1", "token_endpoint_auth_method": "none"})
        elif self.path.startswith("/mcp"):
            self._unauthorized(base)
        else:
            self._json(404, {"error": "not_found"})

    def _unauthorized(self, base: str) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate",
                         f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"')
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture(scope="module")
def oauth_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _OAuthServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_sign_in_opens_the_browser_on_the_servers_authorization_page(qloop, qtbot, tmp_path: Path, oauth_server):
    store = McpStore(tmp_path)
    store.add(McpServerConfig("remote", url=oauth_server + "/mcp"))
    store.add(McpServerConfig("local", command="true"))
    opened: list[str] = []
    page = McpServersPage(store, open_url=lambda url: opened.append(url) or True)
    qtbot.addWidget(page)
    names = [page.table.item(r, 0).text() for r in range(page.table.rowCount())]
    page.table.selectRow(names.index("local"))
    assert not page.sign_in_button.isEnabled()  # a command server has nothing to sign in to
    page.table.selectRow(names.index("remote"))
    assert page.sign_in_button.isEnabled() and opened == []
    page.sign_in_button.click()
    qtbot.waitUntil(lambda: bool(opened), timeout=30_000)
    url = urlsplit(opened[0])
    query = parse_qs(url.query)
    assert f"{url.scheme}://{url.netloc}{url.path}" == oauth_server + "/authorize"
    assert query["client_id"] == ["agentdesk-client-1"] and query["code_challenge_method"] == ["S256"]
    assert query["redirect_uri"][0].startswith("http://127.0.0.1:") and query["code_challenge"][0]
    assert query["resource"] == [oauth_server + "/mcp"]
    assert "Sign in to remote in your browser" in page.note.text()
    signing_in = page.signing_in
    assert signing_in is not None and not signing_in.done()  # waiting for the browser to come back
    signing_in.cancel()
    qtbot.waitUntil(signing_in.done)
