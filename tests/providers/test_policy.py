"""Retry policy, retry-after parsing and the registry, tested without any SDK call.

The retry wrapper is exercised with a scripted in-memory provider (a stand-in
for a provider, not for an SDK client); everything that touches an SDK is in
the contract suite.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import AsyncIterator

import pytest

from kernel.core.errors import ConfigError, ProviderError
from kernel.core.messages import user_text
from kernel.providers.adapter import SdkAdapter
from kernel.providers.base import ProviderRequest, StreamEnd, StreamEvent, TextChunk
from kernel.providers.catalog import CATALOG, PROVIDER_NAMES
from kernel.providers.failures import parse_arguments, parse_retry_after, status_error
from kernel.providers.lazy import missing_key_message
from kernel.providers.registry import make_provider
from kernel.providers.retry import RetryingProvider
from kernel.config.settings import DEFAULT_MODELS, PROVIDERS, Settings, SettingsStore
from tests.providers.support import RecordingSleep, collect

REQUEST = ProviderRequest("s", (user_text("hi"),), model="m")


class Scripted:
    """A provider that fails or answers from a list of steps, one per request."""

    name = "scripted"

    def __init__(self, *steps: ProviderError | list[StreamEvent | ProviderError]) -> None:
        self.steps = list(steps)
        self.calls = 0

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        step = self.steps[self.calls]
        self.calls += 1
        if isinstance(step, ProviderError):
            raise step
        for item in step:
            if isinstance(item, ProviderError):
                raise item
            yield item

    async def aclose(self) -> None:
        pass


def err(kind: str, *, retry_after: float | None = None, started: bool = False) -> ProviderError:
    return ProviderError("scripted", kind, kind, retry_after=retry_after, started=started)  # type: ignore[arg-type]


def test_backoff_is_exponential_with_jitter_and_capped():
    inner = Scripted(*(err("server") for _ in range(5)), [TextChunk("ok"), StreamEnd("end_turn")])
    sleep = RecordingSleep()
    out = asyncio.run(collect(RetryingProvider(inner, max_retries=5, cap_s=3.0, sleep=sleep, random=lambda: 0.5),
                              REQUEST))
    assert out.error is None and out.text == "ok"
    assert sleep.calls == [0.25, 0.5, 1.0, 1.5, 1.5]


def test_non_retryable_kinds_fail_at_once():
    for kind in ("auth", "not_found", "bad_request", "stream", "incomplete", "unsupported"):
        sleep = RecordingSleep()
        out = asyncio.run(collect(RetryingProvider(Scripted(err(kind)), max_retries=3, cap_s=1, sleep=sleep),
                                  REQUEST))
        assert out.error is not None and out.error.kind == kind and sleep.calls == []


def test_an_error_after_output_is_never_retried():
    inner = Scripted([TextChunk("partial"), err("connection", started=False)], [StreamEnd("end_turn")])
    sleep = RecordingSleep()
    out = asyncio.run(collect(RetryingProvider(inner, max_retries=3, cap_s=1, sleep=sleep), REQUEST))
    assert out.text == "partial" and out.error is not None and out.error.kind == "connection"
    assert sleep.calls == [] and inner.calls == 1


def test_retry_after_forms():
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({"retry-after": "7"}) == 7.0
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2026 07:28:10 GMT"}, now=1792567680.0) == 10.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_status_kinds_and_messages():
    kinds = {s: status_error("anthropic", s, "x", model="m").kind for s in (400, 401, 403, 404, 408, 422, 429, 500,
                                                                            502, 503, 529)}
    assert kinds == {400: "bad_request", 401: "auth", 403: "auth", 404: "not_found", 408: "timeout",
                     422: "bad_request", 429: "rate_limit", 500: "server", 502: "server", 503: "overloaded",
                     529: "overloaded"}
    assert "anthropic rejected the API key (401): set ANTHROPIC_API_KEY or the key in Settings" in str(
        status_error("anthropic", 401, "x", model="m"))


def test_parse_arguments_never_raises():
    assert parse_arguments('{"a": 1}') == ({"a": 1}, None)
    assert parse_arguments("") == ({}, None)
    assert parse_arguments("[1]")[0] is None
    assert parse_arguments("{bad")[0] is None


@pytest.mark.parametrize("name, variable", [("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY"),
                                            ("openai-chat", "OPENAI_API_KEY"), ("gemini", "GEMINI_API_KEY")])
def test_missing_key_names_the_variable(name, variable):
    with pytest.raises(ConfigError) as info:
        make_provider(name, api_key=None, settings=Settings())
    assert info.value.variable == variable and variable in str(info.value)


def test_local_openai_chat_server_needs_no_key():
    provider = make_provider("openai-chat", api_key=None, base_url="http://127.0.0.1:11434/v1", settings=Settings())
    assert isinstance(provider, RetryingProvider) and provider.name == "openai-chat"


def test_unknown_provider_is_a_config_error():
    with pytest.raises(ConfigError):
        make_provider("mistral", api_key="k", settings=Settings())


def test_registry_imports_no_sdk():
    code = ("import sys, kernel.providers.registry; "
            "print(sorted(m for m in ('anthropic', 'openai', 'google.genai') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=__file__.rsplit("/tests/", 1)[0])
    assert out.stdout.strip() == "[]"


def test_retry_settings_reach_the_wrapper():
    provider = make_provider("anthropic", api_key="k", settings=Settings(max_retries=5, retry_cap_s=7.0))
    assert isinstance(provider, RetryingProvider)
    assert provider.delay(err("server", retry_after=60), 0) == 7.0


def test_in_process_providers_run_on_the_callers_loop():
    """The CLI has no UI to protect: a worker thread would only add hand-offs (the desktop asks for
    out_of_process, tested in test_process_host). An in-process adapter has no other loop to run on."""
    inner = {name: make_provider(name, api_key="k", settings=Settings()).inner  # type: ignore[attr-defined]
             for name in ("anthropic", "openai", "openai-chat", "gemini")}
    assert all(isinstance(adapter, SdkAdapter) for adapter in inner.values())
    assert not any(getattr(adapter, "out_of_process", False) for adapter in inner.values())


def test_the_catalog_lists_every_provider_the_settings_and_cli_offer():
    assert PROVIDERS == PROVIDER_NAMES == tuple(CATALOG) == ("anthropic", "openai", "openai-chat", "gemini")
    assert {name for name, info in CATALOG.items() if info.out_of_process} == {"openai", "openai-chat", "gemini"}
    assert all(DEFAULT_MODELS[name] == info.default_model for name, info in CATALOG.items())


@pytest.mark.parametrize("name", list(CATALOG))
@pytest.mark.parametrize("base_url", [None, "http://127.0.0.1:11434/v1"])
def test_the_check_before_sending_and_the_registry_agree_on_a_missing_key(name, base_url, tmp_path, monkeypatch):
    """One rule: the Ask window's notice appears exactly when the registry would refuse for want of a key."""
    for info in CATALOG.values():
        for variable in (*info.key_variables, info.base_url_variable):
            monkeypatch.delenv(variable, raising=False)
    store = SettingsStore(tmp_path)
    settings = Settings(base_urls={name: base_url} if base_url else {})
    store.save(settings)
    try:
        make_provider(name, api_key=store.api_key(name), base_url=store.base_url(name, settings), settings=settings)
        refused = False
    except ConfigError:
        refused = True
    message = missing_key_message(name, store)
    assert (message is not None) == refused
    assert refused == (not (name == "openai-chat" and base_url))
