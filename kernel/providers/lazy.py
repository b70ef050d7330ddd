"""Providers built lazily, the first time an agent needs one: the kernel's ``providers`` factory.

Start-up imports no vendor SDK: ``kernel.providers.registry`` (and through
it anthropic, openai or google-genai) is imported only when an agent makes
its first model request. A provider that cannot be built (no API key, an
unknown provider, a missing SDK) is not a crash: the factory returns a
provider whose stream fails with a ``ProviderError`` carrying the reason, so
the agent ends ``failed`` and its window shows what to set.

The desktop and the CLI build providers this same way. The desktop asks for
``out_of_process=True``: the openai, openai-chat and gemini SDKs then run in a
provider host process, since their per-request CPU would otherwise hold the
GIL the Qt loop needs, stalling the desktop for tens of milliseconds on long
conversations. The CLI has no UI to keep responsive and builds its one
provider up front (``require``), so a missing key is bad usage, not a failed agent.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Callable, Generic

from ..core.errors import ConfigError, ProviderError
from .base import Provider, ProviderRequest, StreamEvent
from .catalog import CATALOG
from .ports import KeyStore, S


class UnavailableProvider:
    """Stands in for a provider that could not be built; every request fails with the reason."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        raise ProviderError(self.name, "auth", self.reason)
        yield  # pragma: no cover  (makes this an async generator)

    async def aclose(self) -> None:
        return None


class LazyProviders(Generic[S]):
    """The kernel's ``providers`` factory: one provider per name, built on first use. ``store`` is the
    home's ``SettingsStore`` and ``settings`` gives the kernel's current ``Settings`` (``ports``)."""

    def __init__(self, store: KeyStore[S], settings: Callable[[], S], *,
                 out_of_process: bool = True) -> None:
        self._store = store
        self._settings = settings
        self._out_of_process = out_of_process
        self._built: dict[str, Provider] = {}
        self._retiring: set[asyncio.Task[None]] = set()

    def __call__(self, name: str) -> Provider:
        provider = self._built.get(name)
        if provider is None:
            provider = self._build(name)
            if not isinstance(provider, UnavailableProvider):
                self._built[name] = provider  # a missing key may be set later: retry next time
        return provider

    def require(self, name: str) -> Provider:
        """The provider called ``name``, built now; a ConfigError (unknown provider, no key) is raised."""
        from .registry import make_provider

        provider = self._built.get(name)
        if provider is None:
            provider = self._built[name] = self._make(make_provider, name)
        return provider

    def _build(self, name: str) -> Provider:
        try:
            from .registry import make_provider
        except ImportError as exc:
            return UnavailableProvider(name, f"provider support is not installed ({exc})")
        try:
            return self._make(make_provider, name)
        except ConfigError as exc:
            return UnavailableProvider(name, str(exc))
        except ImportError as exc:
            return UnavailableProvider(name, f"the SDK for {name} is not installed ({exc.name})")

    def _make(self, make_provider: Callable[..., Provider], name: str) -> Provider:
        settings = self._settings()
        return make_provider(name, api_key=self._store.api_key(name),
                             base_url=self._store.base_url(name, settings), settings=settings,
                             out_of_process=self._out_of_process)

    def forget(self) -> None:
        """Drop built providers (after Settings change keys or base URLs). A provider host process
        is stopped once the streams still running through it have finished."""
        dropped = list(self._built.values())
        self._built.clear()
        for provider in dropped:
            self._retire(provider)

    def _retire(self, provider: Provider) -> None:
        inner = getattr(provider, "inner", provider)
        close = getattr(inner, "aclose_when_idle", None)
        if close is None:
            return  # in-process adapters hold no process: left to the garbage collector as before
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop, no stream: the child exits when this process does (its stdin closes)
        task = loop.create_task(close())
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)

    async def aclose(self) -> None:
        """Stop every provider host process (at exit)."""
        dropped = list(self._built.values())
        self._built.clear()
        for provider in dropped:
            await provider.aclose()
        if self._retiring:
            await asyncio.gather(*self._retiring, return_exceptions=True)

    @property
    def built(self) -> dict[str, Any]:
        return dict(self._built)


def missing_key_message(provider: str, store: KeyStore[S]) -> str | None:
    """Why ``provider`` cannot be built yet for want of a key, in words, or None when it can.

    Asked before sending, so a missing key is a sentence, not a failed agent. The rule is the
    registry's (``ProviderInfo.needs_key``); a provider the catalog does not list (a scripted one
    in tests and demos) needs nothing."""
    info = CATALOG.get(provider)
    if info is None:
        return None
    try:
        if store.api_key(provider) is not None:
            return None
    except ConfigError as exc:  # keys.json holds something else than keys: say so, never crash
        return f"{exc.message}. Fix it in Settings, or set {info.key_variable} in the environment."
    settings = store.check().settings  # defaults where settings.json holds something bad
    if not info.needs_key(store.base_url(provider, settings)):
        return None
    return (f"No API key is set for {provider}. Add one in Settings, or set {info.key_variable} "
            "in the environment; until then this agent cannot answer.")
