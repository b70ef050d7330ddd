"""Two loopback fake providers (Anthropic and OpenAI Responses) behind the real SDKs, a kernel with a
manual clock whose retry waits move simulated time instead of sleeping, for the model-route tests."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from kernel.compose import build_kernel
from kernel.config.settings import Settings
from kernel.core.clock import ManualClock
from kernel.core.events import Event
from kernel.facade import Kernel
from kernel.providers.anthropic import AnthropicProvider
from kernel.providers.gemini import GeminiProvider
from kernel.providers.openai_responses import OpenAIResponsesProvider
from kernel.providers.retry import RetryingProvider
from ledger import Ledger, ModelRequest, RouteBreaker
from tests.fakes import FakeProviderServer

MAX_RETRIES = 2
CAP_S = 5.0
RETRY_BUDGET_S = 0.5 + 1.0  # the two waits with jitter fixed at its top: min(cap, 0.5 * 2**n)


@dataclass
class RouteEnv:
    kernel: Kernel
    clock: ManualClock
    ledger: Ledger
    a: FakeProviderServer  # anthropic
    b: FakeProviderServer  # openai (Responses) and gemini: two protocols on one server
    providers: dict[str, RetryingProvider]
    events: list[Event] = field(default_factory=list)
    kept: dict[str, list[Any]] | None = None  # the entries read when the ledger closed

    def requests(self) -> list[ModelRequest]:
        if self.kept is not None:
            return self.kept["request"]
        return [e for e in reversed(self.ledger.page(kind="request", limit=1000)) if isinstance(e, ModelRequest)]

    def breakers(self) -> list[RouteBreaker]:
        if self.kept is not None:
            return self.kept["route.breaker"]
        return [e for e in reversed(self.ledger.page(kind="route.breaker", limit=1000)) if isinstance(e, RouteBreaker)]

    async def ask(self, agent_id: str, text: str) -> Any:
        self.kernel.agents.send(agent_id, text)
        return await self.kernel.agents.wait(agent_id)

    async def aclose(self) -> None:
        for provider in self.providers.values():
            await provider.aclose()


@contextlib.contextmanager
def route_env(tmp_path: Path, **settings: Any) -> Iterator[RouteEnv]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    clock = ManualClock()

    async def sleep(seconds: float) -> None:  # a retry wait is simulated time
        clock.advance(seconds)

    with Ledger(tmp_path / "ledger.db", clock=clock.now) as ledger, FakeProviderServer() as a, \
            FakeProviderServer() as b:
        def retrying(inner: Any) -> RetryingProvider:
            return RetryingProvider(inner, max_retries=MAX_RETRIES, cap_s=CAP_S, sleep=sleep, random=lambda: 1.0)

        providers = {
            "anthropic": retrying(AnthropicProvider(api_key="test-key", base_url=a.anthropic_base_url, timeout_s=10)),
            "openai": retrying(OpenAIResponsesProvider(api_key="test-key", base_url=b.openai_base_url, timeout_s=10)),
            "gemini": retrying(GeminiProvider(api_key="test-key", base_url=b.gemini_base_url, timeout_s=10)),
        }
        kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws), **settings),
                              providers=providers.__getitem__, clock=clock)
        env = RouteEnv(kernel, clock, ledger, a, b, providers)
        kernel.subscribe(env.events.append)
        try:
            yield env
        finally:
            env.kept = {"request": env.requests(), "route.breaker": env.breakers()}
