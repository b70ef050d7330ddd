"""What a fallback adds to a reply: the wall time of a turn on the primary against a turn on the fallback.

Two loopback fakes behind the real SDKs (Anthropic primary, OpenAI Responses
fallback, the agent opted into another vendor), a real kernel and ledger, and
a manual clock: retry waits are simulated time (they are the retry policy's,
bounded by ``max_retries`` and ``retry_cap_s``, not the route's), so what is
measured is what the route itself costs in CPU and loopback round trips:

- ``primary``: the primary answers;
- ``fall over``: the primary answers 529 (retries spent: 1 + 2 refused
  requests), the breaker opens, the fallback answers — the first turn of an
  outage;
- ``breaker open``: the breaker skips the primary, the fallback answers —
  every later turn of the outage;
- ``probe``: the window is over, one probe without retries is refused, the
  fallback answers;
- ``fallback alone``: an agent whose own model is the fallback's, for the
  fallback SDK's own cost (the OpenAI SDK costs more per request than
  Anthropic's: PROVIDERS.md), so ``breaker open`` minus it is the route's part.

Each figure is the median wall time of ``--turns`` turns (default 30) from
``send`` to the agent idle, and the added latency is the difference with
``primary``. Goal (issue 25): a turn during an outage adds at most the retry
budget plus 1 s; the route's own part should be milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

for _var in ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
    os.environ.pop(_var, None)


async def _measure(turns: int) -> dict[str, list[float]]:
    from kernel.compose import build_kernel
    from kernel.config.settings import Settings
    from kernel.core.clock import ManualClock
    from kernel.providers.anthropic import AnthropicProvider
    from kernel.providers.openai_responses import OpenAIResponsesProvider
    from kernel.providers.retry import RetryingProvider
    from ledger import Ledger
    from tests.fakes import FakeProviderServer, HttpError, Text, Turn

    busy = Turn(fault=HttpError(529, kind="overloaded_error"))
    ok = Turn(parts=(Text("An answer of a few words, streamed in pieces.", chunks=6),))
    clock = ManualClock()

    async def sleep(seconds: float) -> None:
        clock.advance(seconds)

    figures: dict[str, list[float]] = {"primary": [], "fallback alone": [], "fall over": [], "breaker open": [],
                                       "probe": []}
    with tempfile.TemporaryDirectory() as tmp, FakeProviderServer() as a, FakeProviderServer() as b:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        providers = {
            "anthropic": RetryingProvider(AnthropicProvider(api_key="test-key", base_url=a.anthropic_base_url),
                                          max_retries=2, cap_s=5.0, sleep=sleep),
            "openai": RetryingProvider(OpenAIResponsesProvider(api_key="test-key", base_url=b.openai_base_url),
                                       max_retries=2, cap_s=5.0, sleep=sleep),
        }
        with Ledger(Path(tmp) / "ledger.db", clock=clock.now) as ledger:
            kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws)),
                                  providers=providers.__getitem__, clock=clock)

            async def turn(agent_id: str, kind: str) -> None:
                began = time.perf_counter()
                kernel.agents.send(agent_id, "go")
                info = await kernel.agents.wait(agent_id)
                assert info.state == "idle", info.reason
                figures[kind].append((time.perf_counter() - began) * 1000)

            for i in range(turns):
                alone = kernel.agents.spawn(f"o{i}", provider="openai", model="gpt-5").id
                b.script(ok)
                await turn(alone, "fallback alone")
                agent = kernel.agents.spawn(f"r{i}", provider="anthropic", model="claude-sonnet-4-5",
                                            fallbacks=("openai:gpt-5",), any_vendor=True).id
                a.script(ok)
                await turn(agent, "primary")
                a.script(busy, busy, busy)
                b.script(ok)
                await turn(agent, "fall over")
                b.script(ok)
                await turn(agent, "breaker open")
                clock.advance(31.0)
                a.script(busy)
                b.script(ok)
                await turn(agent, "probe")
                clock.advance(3600.0)  # long past any window: the next agent's primary is closed again
                a.script(ok)
                await turn(agent, "primary")
            for provider in providers.values():
                await provider.aclose()
        a.assert_done()
        b.assert_done()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30)
    args = parser.parse_args()
    figures = asyncio.run(_measure(args.turns))
    base = statistics.median(figures["primary"])
    alone = statistics.median(figures["fallback alone"])
    print(f"model routes: median wall time of a turn over {args.turns} agents (retry waits simulated)")
    for kind, values in figures.items():
        median = statistics.median(values)
        added = "" if kind in ("primary", "fallback alone") else \
            f"   added {median - base:+7.2f} ms over the primary, {median - alone:+7.2f} ms over the fallback alone"
        print(f"  {kind:13s} {median:8.2f} ms  (p90 {sorted(values)[int(len(values) * 0.9) - 1]:7.2f}){added}")


if __name__ == "__main__":
    main()
