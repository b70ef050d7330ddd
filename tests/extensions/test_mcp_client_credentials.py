"""Machine sign-in (the OAuth client-credentials grant, kernel/extensions/mcp_machine.py): what is ours.

The whole flow against the suite's servers is tests/conformance (auth/client-credentials-basic and
-jwt). Here: the client lives in the key store and is held for redaction; the kernel's connection asks
for a token with it unattended; the authorization server it first used is pinned, so a server that
later points elsewhere never receives the secret; ``agentdesk mcp login --client-credentials`` refuses
what it cannot use. The authorization side is a small asyncio server on loopback (401, protected-
resource metadata, two authorization servers' metadata and token endpoints) driven by the SDK's
providers through the kernel's own ``McpConnection``.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from kernel.config.secrets import SecretStore
from kernel.config.settings import SettingsStore
from kernel.extensions.mcp_client import McpConnection, McpError
from kernel.extensions.mcp_config import McpServerConfig
from kernel.extensions.mcp_hooks import McpHooks
from kernel.extensions.mcp_machine import ClientCredentials, CredentialsError
from kernel.extensions.mcp_oauth import KeyStoreTokens
from tests.cli.inproc import agentdesk

SECRET = "cc-secret-value-9f8e7d"


@dataclass
class Fake:
    base: str = ""
    server_of_resource: str = "a"                     # which authorization server the resource names
    token_requests: list[tuple[str, str, dict[str, list[str]]]] = field(default_factory=list)  # (as, auth, form)


async def _start(fake: Fake) -> asyncio.Server:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        length = int(m.group(1)) if (m := re.search(r"(?i)content-length: (\d+)", head)) else 0
        body = (await reader.readexactly(length)).decode() if length else ""
        auth = m.group(1).strip() if (m := re.search(r"(?i)^authorization: (.*)$", head, re.M)) else ""
        path = head.split()[1].split("?")[0]
        base, status, extra, out = fake.base, 404, "", b""
        if path == "/mcp":
            status, extra = 401, f'WWW-Authenticate: Bearer resource_metadata="{base}/prm"\r\n'
            if auth.startswith("Bearer tok-"):
                status, extra = 500, ""  # signed in; what the server then says is not this test's business
        elif path == "/prm":
            status, out = 200, json.dumps({"resource": base + "/mcp",
                                           "authorization_servers": [f"{base}/{fake.server_of_resource}"]}).encode()
        elif (m := re.fullmatch(r"/\.well-known/oauth-authorization-server/([ab])", path)):
            issuer = f"{base}/{m.group(1)}"
            status, out = 200, json.dumps({
                "issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
                "response_types_supported": ["code"], "grant_types_supported": ["client_credentials"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "private_key_jwt"]}).encode()
        elif (m := re.fullmatch(r"/([ab])/token", path)):
            fake.token_requests.append((m.group(1), auth, parse_qs(body)))
            status, out = 200, json.dumps({"access_token": f"tok-{m.group(1)}", "token_type": "Bearer",
                                           "expires_in": 3600}).encode()
        writer.write(f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(out)}\r\n"
                     f"{extra}Connection: close\r\n\r\n".encode() + out)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    fake.base = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    return server


async def _connect(fake: Fake, vault: SecretStore, held: list[str]) -> str:
    conn = McpConnection(McpServerConfig("machine", url=fake.base + "/mcp", timeout_s=20),
                         hooks=McpHooks(vault=vault, hold=lambda value, _label: held.append(value)))
    try:
        await conn.list_tools()
        return ""
    except McpError as exc:
        return exc.message
    finally:
        await conn.close()


def test_the_kernel_signs_in_unattended_with_client_credentials_pinned_to_their_authorization_server(
        tmp_path: Path) -> None:
    vault = SecretStore(SettingsStore(tmp_path), use_keyring=False)
    tokens = KeyStoreTokens(vault, "machine")
    tokens.set_credentials(ClientCredentials("machine-client", secret=SECRET))
    held: list[str] = []
    fake = Fake()

    async def main() -> tuple[str, str]:
        server = await _start(fake)
        try:
            first = await _connect(fake, vault, held)
            fake.server_of_resource = "b"  # the resource now names another authorization server
            vault.set("mcp:oauth:machine", json.dumps({"credentials": json.loads(
                vault.get("mcp:oauth:machine") or "{}")["credentials"]}))  # and the token is gone
            second = await _connect(fake, vault, held)
            return first, second
        finally:
            server.close()
            await server.wait_closed()

    first, second = asyncio.run(asyncio.wait_for(main(), 60))
    assert "needs sign-in" not in first  # nobody was asked: the grant needs no person
    (server, auth, form), = fake.token_requests  # one token request, to server a; none ever to b
    assert server == "a" and form["grant_type"] == ["client_credentials"]
    assert base64.b64decode(auth.removeprefix("Basic ")).decode() == f"machine-client:{SECRET}"
    pinned = KeyStoreTokens(vault, "machine").credentials()
    assert pinned is not None and pinned.issuer == fake.base + "/a"
    assert "issuer mismatch" in second and fake.base + "/b" in second
    assert SECRET in held  # the secret is held for redaction whenever the kernel reads it
    assert SECRET not in (tmp_path / "mcp.json").read_text() if (tmp_path / "mcp.json").exists() else True


def test_private_key_jwt_signs_an_assertion_for_the_authorization_server(tmp_path: Path) -> None:
    import jwt
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    vault = SecretStore(SettingsStore(tmp_path), use_keyring=False)
    KeyStoreTokens(vault, "machine").set_credentials(
        ClientCredentials("jwt-client", "private_key_jwt", private_key_pem=pem, signing_algorithm="ES256"))
    fake, held = Fake(), []

    async def main() -> None:
        server = await _start(fake)
        try:
            await _connect(fake, vault, held)
        finally:
            server.close()
            await server.wait_closed()

    asyncio.run(asyncio.wait_for(main(), 60))
    (_server, auth, form), = fake.token_requests
    assert auth == "" and form["client_assertion_type"] == ["urn:ietf:params:oauth:client-assertion-type:jwt-bearer"]
    claims: dict[str, Any] = jwt.decode(form["client_assertion"][0], key.public_key(), algorithms=["ES256"],
                                        audience=fake.base + "/a")
    assert claims["iss"] == claims["sub"] == "jwt-client"
    assert pem in held


def test_stored_credentials_are_checked_as_hostile_input() -> None:
    with pytest.raises(CredentialsError, match="needs a client secret"):
        ClientCredentials("c")
    with pytest.raises(CredentialsError, match="private key"):
        ClientCredentials("c", "private_key_jwt")
    with pytest.raises(CredentialsError, match="issuer"):
        ClientCredentials("c", secret="s", issuer="file:///etc/passwd")
    with pytest.raises(CredentialsError, match="cannot sign"):
        ClientCredentials("c", "private_key_jwt", private_key_pem="not a key", signing_algorithm="ES256").check_key()
    for junk in (None, [], {"client_id": 5}, {"client_id": "c", "auth_method": "magic", "secret": "s"},
                 {"client_id": "c", "secret": 5}):
        assert ClientCredentials.from_json(junk) is None


def test_mcp_login_with_client_credentials_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "mcp.json").write_text(json.dumps({"servers": {"web": {"url": "http://127.0.0.1:9/mcp"}}}))
    (tmp_path / "bad.pem").write_text("-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n")
    cases = [(["--client-credentials"], "needs --client-id"),
             (["--client-credentials", "--client-id", "x"], "one of --client-secret-env VAR or --private-key-file"),
             (["--client-credentials", "--client-id", "x", "--client-secret-env", "NOT_SET_HERE"], "is not set"),
             (["--client-credentials", "--client-id", "x", "--private-key-file", str(tmp_path / "bad.pem"),
               "--signing-algorithm", "ES256"], "cannot sign ES256"),
             (["--client-credentials", "--client-id", "x", "--private-key-file", str(tmp_path / "none.pem")],
              "cannot read the private key file")]
    for extra, why in cases:
        out = agentdesk(["mcp", "login", "web", *extra], home)
        assert out.returncode == 2 and why in out.stderr, (extra, out.stderr)
    assert "credentials" not in (home / "keys.json").read_text() if (home / "keys.json").exists() else True


def test_removing_a_server_forgets_its_client_credentials(tmp_path: Path) -> None:
    from kernel.extensions.mcp_config import McpStore

    vault = SecretStore(SettingsStore(tmp_path), use_keyring=False)
    store = McpStore(tmp_path, vault)
    store.add(McpServerConfig("machine", url="http://127.0.0.1:9/mcp"))
    KeyStoreTokens(vault, "machine").set_credentials(ClientCredentials("machine-client", secret=SECRET))
    assert SECRET in (tmp_path / "keys.json").read_text()
    assert store.remove("machine")
    assert KeyStoreTokens(vault, "machine").credentials() is None and SECRET not in (tmp_path / "keys.json").read_text()


def test_mcp_add_without_a_kernel_says_a_remote_server_needs_sign_in_in_words(tmp_path: Path) -> None:
    """No kernel runs: the command line lists the server itself, with the key store (a server that wants a
    person says so, never "Server returned an error response", and no traceback reaches the terminal)."""
    import threading

    from tests.extensions.test_mcp_http import _auth_server

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    server, base = asyncio.run_coroutine_threadsafe(_auth_server(), loop).result(30)
    try:
        home = tmp_path / "home"
        home.mkdir()
        out = agentdesk(["mcp", "add", "remote", "--url", base + "/mcp", "--timeout", "20"], home,
                        {"AGENTDESK_KEYRING": "off"})
    finally:
        loop.call_soon_threadsafe(server.close)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
    assert out.returncode == 1 and "needs sign-in: run `agentdesk mcp login remote`" in out.stderr, out.stderr
    assert "Server returned an error response" not in out.stderr + out.stdout and "Traceback" not in out.stderr
