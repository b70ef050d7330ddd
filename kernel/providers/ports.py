"""What providers need from the home's settings, declared here so providers never import them.

Building a provider takes a key, a base URL and the request limits (timeout,
retries); the kernel's ``config.settings`` (``SettingsStore``, ``Settings``)
holds them and fits these Protocols as it is. Declaring them on this side
keeps the arrow pointing one way: ``config`` names the providers' catalog,
providers import neither ``config`` nor, through it, the ledger.
"""

from __future__ import annotations

from typing import Protocol, TypeVar


class RequestLimits(Protocol):
    """How long one request may take, and how often (and how long at most between tries) it is retried."""

    @property
    def request_timeout_s(self) -> float: ...

    @property
    def max_retries(self) -> int: ...

    @property
    def retry_cap_s(self) -> float: ...


S = TypeVar("S", bound=RequestLimits)
S_co = TypeVar("S_co", bound=RequestLimits, covariant=True)


class SettingsRead(Protocol[S_co]):
    """Settings read leniently: defaults where a value was bad."""

    @property
    def settings(self) -> S_co: ...


class KeyStore(Protocol[S]):
    """Where a provider's key and base URL are found (the home's ``SettingsStore``)."""

    def api_key(self, provider: str) -> str | None: ...

    def base_url(self, provider: str, settings: S) -> str | None: ...

    def check(self) -> SettingsRead[S]: ...
