"""Build a provider by its CLI name, importing only that adapter and its SDK.

``import kernel.providers.registry`` costs nothing: the adapter module (and
with it anthropic, openai or google-genai) is imported inside
``make_provider``. Every provider comes wrapped in ``RetryingProvider`` with
the Settings' retry limits. ``openai-chat`` aimed at a local server (Ollama,
vLLM, llama.cpp, LM Studio) needs no key: those servers ignore it, so with a
``base_url`` and no key a placeholder is sent; the OpenAI API itself still
requires ``OPENAI_API_KEY``.
"""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable

from ..errors import ConfigError
from ..settings import KEY_VARIABLES, PROVIDERS, Settings
from .base import Provider
from .retry import RetryingProvider

LOCAL_SERVER_KEY = "not-needed"


OUT_OF_PROCESS = frozenset({"openai", "openai-chat", "gemini"})
"""Providers whose SDK costs milliseconds of CPU per request (growing with the conversation):
with ``out_of_process=True`` they run in a host process (``process_host``), off the caller's GIL.
Anthropic's SDK costs about 1.3 ms per request, flat, and stays in-process."""


def make_provider(name: str, *, api_key: str | None, base_url: str | None = None, settings: Settings,
                  sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
                  out_of_process: bool = False) -> RetryingProvider:
    """The provider called ``name``, ready to stream, with retries per ``settings``.

    ``out_of_process``: run the SDK of openai, openai-chat and gemini in a child process
    (the desktop asks for this, so request building never holds its loop's GIL). Otherwise
    (the CLI, with no UI to keep responsive) every SDK runs on the caller's own loop: a worker
    thread would only add a hand-off per event and contend for the GIL."""
    if name not in PROVIDERS:
        raise ConfigError(f"unknown provider {name!r}: choose one of {', '.join(PROVIDERS)}", "provider")
    if not api_key:
        if name == "openai-chat" and base_url:
            api_key = LOCAL_SERVER_KEY
        else:
            variable = KEY_VARIABLES[name]
            raise ConfigError(f"no API key for {name}: set {variable} or the key in Settings", variable)
    inner: Provider
    if out_of_process and name in OUT_OF_PROCESS:
        from .process_host import ProcessProvider

        inner = ProcessProvider(name, api_key=api_key, base_url=base_url, timeout_s=settings.request_timeout_s)
    else:
        inner = build_adapter(name, api_key, base_url, settings.request_timeout_s, offload=False)
    return RetryingProvider(inner, max_retries=settings.max_retries, cap_s=settings.retry_cap_s, sleep=sleep)


def build_adapter(name: str, api_key: str, base_url: str | None, timeout_s: float, *,
                  offload: bool | None = None) -> Provider:
    """The in-process SDK adapter for ``name`` (no retries). ``offload`` as in ``SdkAdapter``."""
    if name == "anthropic":
        from .anthropic import AnthropicProvider

        return AnthropicProvider(api_key=api_key, base_url=base_url, timeout_s=timeout_s, offload=offload)
    if name == "openai":
        from .openai_responses import OpenAIResponsesProvider

        return OpenAIResponsesProvider(api_key=api_key, base_url=base_url, timeout_s=timeout_s, offload=offload)
    if name == "openai-chat":
        from .openai_chat import OpenAIChatProvider

        return OpenAIChatProvider(api_key=api_key, base_url=base_url, timeout_s=timeout_s, offload=offload)
    from .gemini import GeminiProvider

    return GeminiProvider(api_key=api_key, base_url=base_url, timeout_s=timeout_s, offload=offload)
