"""Machine sign-in for a remote MCP server: the OAuth client-credentials grant (SEP-1046), no person involved.

Some servers are meant for programs, not people: their authorization server's owner issues a client
(an ID and a secret, or an ID and a private key it holds the public half of) and the client gets its
own tokens with ``grant_type=client_credentials``. The ``mcp`` SDK ships both providers
(``mcp.client.auth.extensions.client_credentials``: ``client_secret_basic``/``client_secret_post``,
and ``private_key_jwt`` with an RFC 7523 assertion it signs); what is ours:

- ``ClientCredentials`` is kept in the key store, in the server's one OAuth entry (``mcp:oauth:NAME``,
  beside its tokens), never in mcp.json, a log or the ledger; the secret and the private key are held
  for redaction whenever they are read.
- The authorization server the credentials belong to is pinned. Given (``--issuer``), the SDK sends
  them nowhere else. Not given, the first one the server's metadata names is recorded once a token
  came back, and every later sign-in must find that same issuer: a server that starts pointing at
  another authorization server cannot collect the secret there (the SDK alone would follow it).
- A kernel in the background signs in by itself: the grant needs no browser, and an expired token is
  simply asked for again.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Literal
from urllib.parse import urlparse

from ..core.errors import KernelError

if TYPE_CHECKING:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthMetadata, OAuthToken

    from .mcp_oauth import KeyStoreTokens

AuthMethod = Literal["client_secret_basic", "client_secret_post", "private_key_jwt"]
METHODS: tuple[AuthMethod, ...] = ("client_secret_basic", "client_secret_post", "private_key_jwt")
ALGORITHMS = ("RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "EdDSA")
MAX_FIELD = 16_384  # a PEM private key fits many times over; more is not a credential


class CredentialsError(KernelError):
    """Client credentials that cannot be used (the sentence says which part and why)."""


@dataclass(frozen=True)
class ClientCredentials:
    """A client issued for machine sign-in: ``secret`` for the client_secret methods, ``private_key_pem``
    for private_key_jwt. ``issuer`` is the authorization server they belong to (pinned on first use)."""

    client_id: str
    auth_method: AuthMethod = "client_secret_basic"
    secret: str | None = None
    private_key_pem: str | None = None
    signing_algorithm: str = "RS256"
    issuer: str | None = None
    scope: str | None = None

    def __post_init__(self) -> None:
        for name in ("client_id", "secret", "private_key_pem", "issuer", "scope"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value or len(value) > MAX_FIELD
                                      or "\x00" in value):
                raise CredentialsError(f"client credentials: {name} must be non-empty text")
        if self.auth_method not in METHODS:
            raise CredentialsError(f"client credentials: the auth method must be one of {', '.join(METHODS)}")
        if self.auth_method == "private_key_jwt":
            if self.private_key_pem is None:
                raise CredentialsError("client credentials: private_key_jwt needs a private key (PEM)")
            if self.signing_algorithm not in ALGORITHMS:
                raise CredentialsError(f"client credentials: the signing algorithm must be one of {', '.join(ALGORITHMS)}")
        elif self.secret is None:
            raise CredentialsError(f"client credentials: {self.auth_method} needs a client secret")
        if self.issuer is not None and urlparse(self.issuer).scheme not in ("http", "https"):
            raise CredentialsError("client credentials: the issuer must be the authorization server's http(s) URL")

    def secrets(self) -> tuple[tuple[str, str], ...]:
        """(label, value) of what must never be shown."""
        out = [("client secret", self.secret), ("client private key", self.private_key_pem)]
        return tuple((label, value) for label, value in out if value)

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in (("client_id", self.client_id), ("auth_method", self.auth_method),
                                  ("secret", self.secret), ("private_key_pem", self.private_key_pem),
                                  ("signing_algorithm", self.signing_algorithm), ("issuer", self.issuer),
                                  ("scope", self.scope)) if v is not None}

    @classmethod
    def from_json(cls, data: Any) -> "ClientCredentials | None":
        """The stored entry (hostile: the key store is a file), or None when there is none or it is unusable."""
        if not isinstance(data, dict) or not isinstance(data.get("client_id"), str):
            return None
        fields = ("client_id", "auth_method", "secret", "private_key_pem", "signing_algorithm", "issuer", "scope")
        try:
            return cls(**{k: data[k] for k in fields if k in data})
        except (CredentialsError, TypeError):
            return None

    def check_key(self) -> None:
        """Sign a throwaway assertion with the private key (CredentialsError when it cannot sign)."""
        if self.private_key_pem is None:
            return
        import jwt

        try:
            jwt.encode({"iss": self.client_id}, self.private_key_pem, algorithm=self.signing_algorithm)
        except Exception as exc:  # noqa: BLE001 - PyJWT and cryptography raise many kinds for a bad key
            raise CredentialsError(f"client credentials: the private key cannot sign {self.signing_algorithm} "
                                   f"({type(exc).__name__})") from None


class PinningTokens:
    """The SDK's token storage for a machine client: the server's ``KeyStoreTokens``, and on the first token
    the issuer it came from recorded beside the credentials (pinned from then on)."""

    def __init__(self, tokens: "KeyStoreTokens", credentials: ClientCredentials,
                 metadata: Callable[[], "OAuthMetadata | None"]) -> None:
        self._tokens = tokens
        self._credentials = credentials
        self._metadata = metadata

    async def get_tokens(self) -> "OAuthToken | None":
        return await self._tokens.get_tokens()

    async def set_tokens(self, tokens: "OAuthToken") -> None:
        await self._tokens.set_tokens(tokens)
        found = self._metadata()
        if self._credentials.issuer is None and found is not None:
            self._credentials = replace(self._credentials, issuer=str(found.issuer))
            self._tokens.set_credentials(self._credentials)

    async def get_client_info(self) -> Any:
        return None  # the client is the configured one (the provider sets it)

    async def set_client_info(self, client_info: Any) -> None:
        return None


def machine_provider(url: str, tokens: "KeyStoreTokens", credentials: ClientCredentials) -> "OAuthClientProvider":
    """The SDK's client-credentials provider for one server, its credentials pinned to their issuer."""
    from mcp.client.auth.extensions.client_credentials import (ClientCredentialsOAuthProvider,
                                                               PrivateKeyJWTOAuthProvider, SignedJWTParameters)
    from mcp.shared.exceptions import MCPDeprecationWarning

    provider: OAuthClientProvider
    holder: list[OAuthClientProvider] = []
    storage = PinningTokens(tokens, credentials, lambda: holder[0].context.oauth_metadata if holder else None)
    with warnings.catch_warnings():  # no issuer yet: pinned by PinningTokens on the first token instead
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        if credentials.auth_method == "private_key_jwt":
            assert credentials.private_key_pem is not None  # checked in ClientCredentials
            signer = SignedJWTParameters(issuer=credentials.client_id, subject=credentials.client_id,
                                         signing_key=credentials.private_key_pem,
                                         signing_algorithm=credentials.signing_algorithm)
            provider = PrivateKeyJWTOAuthProvider(url, storage, credentials.client_id,
                                                  signer.create_assertion_provider(), scope=credentials.scope,
                                                  issuer=credentials.issuer)
        else:
            assert credentials.secret is not None
            provider = ClientCredentialsOAuthProvider(url, storage, credentials.client_id, credentials.secret,
                                                      credentials.auth_method, scope=credentials.scope,
                                                      issuer=credentials.issuer)
    holder.append(provider)
    return provider
