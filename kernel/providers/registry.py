"""Build a provider by its CLI name, importing only that adapter and its SDK.

``import kernel.providers.registry`` costs nothing: the adapter module (and
with it anthropic, openai or google-genai) is imported inside
``make_provider``. Every provider comes wrapped in ``RetryingProvider`` with
the Settings' retry limits. What each provider needs (its adapter, its key,
whether a local server spares it one) is read from ``catalog``: the OpenAI
API requires ``OPENAI_API_KEY``, but ``openai-chat`` aimed at a local server
(Ollama, vLLM, llama.cpp, LM Studio) needs none, so with a ``base_url`` and no
key a placeholder is sent.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import Awaitable, Callable

from ..core.errors import ConfigError
from .base import Provider
from .catalog import CATALOG, ProviderInfo
from .ports import RequestLimits
from .retry import RetryingProvider

LOCAL_SERVER_KEY = "not-needed"


def make_provider(name: str, *, api_key: str | None, base_url: str | None = None, settings: RequestLimits,
                  sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
                  out_of_process: bool = False) -> RetryingProvider:
    """The provider called ``name``, ready to stream, with retries per ``settings``.

    ``out_of_process``: run the SDK of a provider the catalog marks ``out_of_process`` in a child
    process (the desktop asks for this, so request building never holds its loop's GIL). Otherwise
    (the CLI, with no UI to keep responsive) every SDK runs on the caller's own loop: a worker
    thread would only add a hand-off per event and contend for the GIL."""
    info = provider_info(name)
    if not api_key:
        if info.needs_key(base_url):
            raise ConfigError(f"no API key for {name}: set {info.key_variable} or the key in Settings",
                              info.key_variable)
        api_key = LOCAL_SERVER_KEY
    inner: Provider
    if out_of_process and info.out_of_process:
        from .process_host import ProcessProvider

        inner = ProcessProvider(name, api_key=api_key, base_url=base_url, timeout_s=settings.request_timeout_s)
    else:
        inner = build_adapter(name, api_key, base_url, settings.request_timeout_s)
    return RetryingProvider(inner, max_retries=settings.max_retries, cap_s=settings.retry_cap_s, sleep=sleep)


def provider_info(name: str) -> ProviderInfo:
    """The catalog's entry for ``name``, or a ConfigError naming the providers there are."""
    info = CATALOG.get(name)
    if info is None:
        raise ConfigError(f"unknown provider {name!r}: choose one of {', '.join(CATALOG)}", "provider")
    return info


def build_adapter(name: str, api_key: str, base_url: str | None, timeout_s: float) -> Provider:
    """The in-process SDK adapter for ``name`` (no retries), run on the caller's loop."""
    module, _, cls = provider_info(name).adapter.partition(":")
    adapter: type = getattr(importlib.import_module(f"{__package__}.{module}"), cls)
    provider: Provider = adapter(api_key=api_key, base_url=base_url, timeout_s=timeout_s)
    return provider
