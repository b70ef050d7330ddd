"""Sign-in for remote MCP servers: the SDK's OAuth 2.1 client, with the tokens in the key store.

The ``mcp`` SDK's ``OAuthClientProvider`` already does what the MCP authorization spec asks of a
client (protected-resource metadata at the path-based and root well-known URLs, authorization-
server metadata by RFC 8414 and OpenID discovery with the 2025-03-26 fallbacks, dynamic client
registration or a client ID metadata document, PKCE, resource indicators, the scope from
``WWW-Authenticate`` or ``scopes_supported``, step-up on ``insufficient_scope``, the token
endpoint's auth methods, refresh). What is ours is where its state lives and who is asked:

- ``KeyStoreTokens`` keeps a server's tokens and client registration as one entry
  ``mcp:oauth:<server>`` in the secret store (the keyring, or the owner-only keys.json), never in
  mcp.json, a log or the ledger; every token it sees is handed to ``hold`` so the redactor keeps it
  off the record from then on.
- A kernel connecting in the background has nobody to send to a browser: its provider refreshes
  tokens silently, but a server that wants a new sign-in fails with ``SignInNeeded`` and the
  connection says so in words ("needs sign-in: run `agentdesk mcp login NAME`").
- ``agentdesk mcp login NAME`` (and the conformance adapter) connects with a ``Browser``: the
  authorization URL is shown to a person (or followed by the test's user agent) and the code comes
  back to a ``LoopbackRedirect`` on 127.0.0.1 (RFC 8252 §7.3).
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol
from urllib.parse import parse_qs, urlparse

from ..core.errors import KernelError

if TYPE_CHECKING:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthToken

    from .mcp_machine import ClientCredentials

PREFIX = "mcp:oauth:"  # under the mcp: family keys.json accepts; a server name never holds ":"
CLIENT_NAME = "Agentdesk"
CALLBACK_PATH = "/callback"
SIGN_IN_WAIT_S = 300.0  # how long a login waits for the browser to come back


class SignInNeeded(KernelError):
    """The server wants a person to sign in (no token, or the refresh token was refused)."""

    def __init__(self, server: str) -> None:
        super().__init__(f"the MCP server {server} needs sign-in: run `agentdesk mcp login {server}`")
        self.server = server


class Vault(Protocol):
    """Where named secrets live (``kernel.config.secrets.SecretStore``)."""

    def get(self, name: str) -> str | None: ...
    def set(self, name: str, value: str) -> str: ...
    def delete(self, name: str) -> None: ...


class LazyVault:
    """A ``Vault`` made on first use (finding the keyring costs 100-950 ms: only a sign-in should pay it)."""

    def __init__(self, make: Callable[[], Vault]) -> None:
        self._make = make
        self._vault: Vault | None = None

    def _get(self) -> Vault:
        if self._vault is None:
            self._vault = self._make()
        return self._vault

    def get(self, name: str) -> str | None:
        return self._get().get(name)

    def set(self, name: str, value: str) -> str:
        return self._get().set(name, value)

    def delete(self, name: str) -> None:
        self._get().delete(name)


Browser = Callable[[str], Awaitable[None]]  # shows (or follows) the authorization URL


def vault_name(server: str) -> str:
    return PREFIX + server


class KeyStoreTokens:
    """The SDK's ``TokenStorage`` for one server, kept in the key store as one JSON entry."""

    def __init__(self, vault: Vault, server: str, hold: Callable[[str, str], object] | None = None) -> None:
        self._vault = vault
        self._server = server
        self._hold = hold

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self._vault.get(vault_name(self._server)) or "{}")
        except (ValueError, OSError, KernelError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, key: str, value: dict[str, Any]) -> None:
        data = self._read()
        data[key] = value
        self._vault.set(vault_name(self._server), json.dumps(data))

    def _held(self, token: "OAuthToken") -> None:
        if self._hold is not None:
            for label, value in (("access token", token.access_token), ("refresh token", token.refresh_token)):
                if value:
                    self._hold(value, f"MCP server {self._server}: OAuth {label}")

    async def get_tokens(self) -> "OAuthToken | None":
        from mcp.shared.auth import OAuthToken
        from pydantic import ValidationError

        raw = self._read().get("tokens")
        try:
            token = OAuthToken.model_validate(raw) if isinstance(raw, dict) else None
        except ValidationError:
            return None
        if token is not None:
            self._held(token)
        return token

    async def set_tokens(self, tokens: "OAuthToken") -> None:
        self._held(tokens)
        self._write("tokens", tokens.model_dump(mode="json", exclude_none=True))

    async def get_client_info(self) -> "OAuthClientInformationFull | None":
        from mcp.shared.auth import OAuthClientInformationFull
        from pydantic import ValidationError

        raw = self._read().get("client")
        try:
            info = OAuthClientInformationFull.model_validate(raw) if isinstance(raw, dict) else None
        except ValidationError:
            return None
        if info is not None and info.client_secret and self._hold is not None:
            self._hold(info.client_secret, f"MCP server {self._server}: OAuth client secret")
        return info

    async def set_client_info(self, client_info: "OAuthClientInformationFull") -> None:
        if client_info.client_secret and self._hold is not None:
            self._hold(client_info.client_secret, f"MCP server {self._server}: OAuth client secret")
        self._write("client", client_info.model_dump(mode="json", exclude_none=True))

    async def pre_register(self, client_id: str, client_secret: str | None = None,
                           auth_method: str | None = None) -> None:
        """Use a client the authorization server's owner registered for us (no dynamic registration)."""
        from mcp.shared.auth import OAuthClientInformationFull

        method = auth_method or ("client_secret_basic" if client_secret else "none")
        await self.set_client_info(OAuthClientInformationFull(client_id=client_id, client_secret=client_secret,
                                                              token_endpoint_auth_method=method))

    def credentials(self) -> "ClientCredentials | None":
        """The server's machine client (``mcp_machine``), when it signs in with client credentials."""
        from .mcp_machine import ClientCredentials

        found = ClientCredentials.from_json(self._read().get("credentials"))
        if found is not None and self._hold is not None:
            for label, value in found.secrets():
                self._hold(value, f"MCP server {self._server}: OAuth {label}")
        return found

    def set_credentials(self, credentials: "ClientCredentials") -> None:
        """Sign in with client credentials from now on (the tokens of an earlier sign-in are dropped)."""
        if self._hold is not None:
            for label, value in credentials.secrets():
                self._hold(value, f"MCP server {self._server}: OAuth {label}")
        from dataclasses import replace

        from .mcp_machine import ClientCredentials

        data = self._read()
        before = ClientCredentials.from_json(data.get("credentials"))
        if before is None or replace(before, issuer=credentials.issuer) != credentials:
            data.pop("tokens", None)  # another client's tokens (pinning its issuer keeps them)
        data.pop("client", None)
        data["credentials"] = credentials.to_json()
        self._vault.set(vault_name(self._server), json.dumps(data))

    def drop_credentials(self) -> None:
        """Sign in through a browser from now on: the machine client and its tokens are forgotten."""
        data = self._read()
        if "credentials" in data:
            data.pop("credentials")
            data.pop("tokens", None)
            self._vault.set(vault_name(self._server), json.dumps(data))

    def signed_in(self) -> bool:
        return isinstance(self._read().get("tokens"), dict)

    def forget(self) -> None:
        self._vault.delete(vault_name(self._server))


class LoopbackRedirect:
    """A one-shot HTTP listener on 127.0.0.1 that takes the authorization server's redirect."""

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[dict[str, str]] | None = None
        self.port = 0

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    def expect(self) -> None:
        """A new sign-in begins: the next redirect answers it (a step-up signs in again on the same listener)."""
        self._result = asyncio.get_running_loop().create_future()

    async def start(self) -> None:
        self.expect()
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), 10)
            while (await asyncio.wait_for(reader.readline(), 10)) not in (b"\r\n", b"\n", b""):
                pass
            parts = line.decode("latin-1").split()
            target = urlparse(parts[1]) if len(parts) >= 2 else None
            ok = target is not None and target.path == CALLBACK_PATH
            params = {k: v[0] for k, v in parse_qs(target.query).items()} if ok and target else {}
            body = b"Signed in: you can close this tab." if params.get("code") else b"Sign-in did not complete."
            writer.write(b"HTTP/1.1 %d OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                         % (200 if ok else 404, len(body)) + body)
            await writer.drain()
            if ok and self._result is not None and not self._result.done():
                self._result.set_result(params)
        except (OSError, asyncio.TimeoutError, UnicodeDecodeError):
            pass
        finally:
            writer.close()

    async def wait(self) -> "AuthorizationCodeResult":
        from mcp.client.auth import OAuthFlowError
        from mcp.shared.auth import AuthorizationCodeResult

        assert self._result is not None
        params = await asyncio.wait_for(asyncio.shield(self._result), SIGN_IN_WAIT_S)
        if not params.get("code"):
            raise OAuthFlowError(f"sign-in was refused: {params.get('error', 'no code came back')}"[:300])
        return AuthorizationCodeResult(code=params["code"], state=params.get("state"), iss=params.get("iss"))


@dataclass(frozen=True)
class OAuthSettings:
    """A server's sign-in settings from mcp.json: a client ID metadata document URL (used when the
    authorization server supports it) and a scope to ask for when the server names none."""

    client_metadata_url: str | None = None


def _not_sign_in_needed(record: "logging.LogRecord") -> bool:
    """The SDK logs every failed flow with its traceback ("OAuth flow error"); a sign-in nobody here can give
    is expected and said in words by the connection, so that one is not logged (a terminal showed the trace)."""
    return not (record.exc_info and isinstance(record.exc_info[1], SignInNeeded))


def provider(server: str, url: str, tokens: KeyStoreTokens, settings: OAuthSettings,
             browser: Browser | None, redirect: LoopbackRedirect | None,
             on_needed: Callable[[], None]) -> "OAuthClientProvider":
    """The SDK's OAuth provider for one server. Without ``browser`` (the kernel in the background) a
    server that needs a new sign-in calls ``on_needed`` and fails the request with ``SignInNeeded``."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata
    from pydantic import AnyUrl

    redirect_uri = redirect.uri if redirect is not None else "http://127.0.0.1/callback"
    flow_log = logging.getLogger("mcp.client.auth.oauth2")
    if _not_sign_in_needed not in flow_log.filters:
        flow_log.addFilter(_not_sign_in_needed)

    async def open_url(authorization_url: str) -> None:
        if browser is None or redirect is None:
            on_needed()
            raise SignInNeeded(server)
        redirect.expect()
        await browser(authorization_url)

    async def come_back() -> "AuthorizationCodeResult":
        assert redirect is not None
        return await redirect.wait()

    metadata = OAuthClientMetadata(client_name=CLIENT_NAME, redirect_uris=[AnyUrl(redirect_uri)],
                                   grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                                   token_endpoint_auth_method="none")
    return OAuthClientProvider(url, metadata, tokens, redirect_handler=open_url, callback_handler=come_back,
                               client_metadata_url=settings.client_metadata_url)
