"""Fixtures for the provider contract suite: the loopback fake and one case per adapter.

Every adapter is driven through its real SDK against ``tests.fakes``; nothing
here mocks a client. The SDKs' own environment variables are cleared so a
developer's real keys or base URLs can never be used.
"""

from __future__ import annotations

import os
import socket
import sys
from dataclasses import dataclass
from typing import Any, Callable

import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests.fakes import FakeProviderServer  # noqa: E402

for _var in ("GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE", "GOOGLE_API_KEY", "GEMINI_API_KEY",
             "GOOGLE_GENAI_API_VERSION", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "GOOGLE_GEMINI_BASE_URL",
             "ANTHROPIC_CUSTOM_HEADERS", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
    os.environ.pop(_var, None)


@dataclass(frozen=True)
class Case:
    """One adapter under the contract: how to build it against a base URL, and its wire protocol."""

    name: str
    protocol: str
    base_url: Callable[[FakeProviderServer], str]
    build: Callable[..., Any]

    def make(self, srv: FakeProviderServer, key: str = "test-key", base_url: str | None = None) -> Any:
        return self.build(api_key=key, base_url=base_url or self.base_url(srv), timeout_s=10.0)


def _anthropic(**kw: Any) -> Any:
    from kernel.providers.anthropic import AnthropicProvider
    return AnthropicProvider(**kw)


def _openai(**kw: Any) -> Any:
    from kernel.providers.openai_responses import OpenAIResponsesProvider
    return OpenAIResponsesProvider(**kw)


def _chat(**kw: Any) -> Any:
    from kernel.providers.openai_chat import OpenAIChatProvider
    return OpenAIChatProvider(**kw)


def _gemini(**kw: Any) -> Any:
    from kernel.providers.gemini import GeminiProvider
    return GeminiProvider(**kw)


def _hosted(name: str) -> Callable[..., Any]:
    """The adapter run in a provider host process (``ProcessProvider``), as the desktop runs it."""

    def build(**kw: Any) -> Any:
        from kernel.providers.process_host import ProcessProvider
        return ProcessProvider(name, **kw)

    return build


def _piped(name: str) -> Callable[..., Any]:
    """``ProcessProvider`` speaking the host protocol over pipes to ``host_child`` on this loop (inline_host.py)."""

    def build(**kw: Any) -> Any:
        from kernel.providers.process_host import ProcessProvider
        from tests.providers.inline_host import InlineHost
        return ProcessProvider(name, spawn=InlineHost.start, **kw)

    return build


IN_PROCESS = {
    "anthropic": Case("anthropic", "anthropic", lambda s: s.anthropic_base_url, _anthropic),
    "openai": Case("openai", "openai_responses", lambda s: s.openai_base_url, _openai),
    "openai-chat": Case("openai-chat", "openai_chat", lambda s: s.openai_base_url, _chat),
    "gemini": Case("gemini", "gemini", lambda s: s.gemini_base_url, _gemini),
}
_OUT_OF_PROCESS = ("openai", "openai-chat", "gemini")  # what the catalog runs in a provider host
# Real host processes: for what the process adds (tests/providers/test_process_host.py) — multiplexing, a
# dying child, the key kept out of argv — which is the same whichever SDK the child serves (each SDK's
# serving code runs the whole contract through the ``@pipe`` cases). One SDK, then: the child per test
# cost 12 tests of 10-26 s each in CI when all three hosted SDKs ran them. OpenAI's is kept: its import is
# the quickest of the three, and the respawn tests start two children each.
HOSTED = {f"{name}@host": Case(name, case.protocol, case.base_url, _hosted(name))
          for name, case in IN_PROCESS.items() if name == "openai"}
# The contract through the host protocol and the child's serving code, minus the process (a child per
# test cost ~870 s of the suite's ~2,100 test-seconds on 2 cores).
PIPED = {f"{name}@pipe": Case(name, case.protocol, case.base_url, _piped(name))
         for name, case in IN_PROCESS.items() if name in _OUT_OF_PROCESS}
CASES = {**IN_PROCESS, **PIPED}


@pytest.fixture(params=list(CASES))
def case(request: pytest.FixtureRequest) -> Case:
    return CASES[request.param]


@pytest.fixture(params=list(HOSTED))
def hosted(request: pytest.FixtureRequest) -> Case:
    return HOSTED[request.param]


@pytest.fixture
def srv():
    with FakeProviderServer(expected_key="test-key") as server:
        yield server


@pytest.fixture
def closed_port() -> int:
    """A loopback port with nothing listening (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
