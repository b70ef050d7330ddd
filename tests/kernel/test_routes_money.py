"""Money on a route (issue 25, point 5): tokens count the same whichever model served them, each
request is priced as the model that answered it (the served name when the table prices it, else the
model it was sent to), before and after a restart and in today's spend; a fallback dearer than the
price ceiling times the primary's price is never asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.compose import build_kernel
from kernel.providers.scripted import ScriptedProvider
from tests.fakes import HttpError, Text, Turn, Usage

from .conftest import run
from .routes_env import route_env

PRICES = {"anthropic": {"claude-sonnet-4-5": {"input": 3.0, "output": 15.0, "cached_input": 0.3, "cache_write": 3.75},
                        "claude-opus-4-1": {"input": 15.0, "output": 75.0, "cached_input": 1.5, "cache_write": 18.75}},
          "openai": {"gpt-5": {"input": 1.25, "output": 10.0, "cached_input": 0.125},
                     "gpt-5-2025-08-07": {"input": 2.0, "output": 20.0, "cached_input": 0.2}}}
OVERLOADED = Turn(fault=HttpError(529, kind="overloaded_error"))


def test_each_request_is_priced_as_the_model_that_served_it(tmp_path: Path, agentdesk_home: Path) -> None:
    with route_env(tmp_path, prices=PRICES) as env:
        env.a.script(OVERLOADED, OVERLOADED, OVERLOADED, Turn(parts=(Text("back"),), usage=Usage(2_000, 200)))
        env.b.script(Turn(parts=(Text("covering"),), usage=Usage(1_000, 100), served_model="gpt-5-2025-08-07"),
                     Turn(parts=(Text("covering"),), usage=Usage(500, 50), served_model="gpt-5-unpriced-snapshot"))

        async def body() -> tuple[int, float | None, float]:
            agent = env.kernel.agents.spawn("payer", provider="anthropic", model="claude-sonnet-4-5",
                                            fallbacks=("openai:gpt-5",), any_vendor=True)
            for text in ("one", "two"):
                await env.ask(agent.id, text)
            env.clock.advance(60.0)
            info = await env.ask(agent.id, "three")
            await env.aclose()
            again = build_kernel(ledger=env.ledger, settings=env.kernel.settings,
                                 providers=lambda _n: ScriptedProvider(), clock=env.clock, restore=True)
            assert again.agents.get(agent.id).cost == pytest.approx(info.cost)  # the record alone says it
            return info.used, info.cost, env.kernel.agents.spend_today().cost

        used, cost, today = run(body())
        env.a.assert_done()
        env.b.assert_done()
    assert used == 1_100 + 550 + 2_200  # tokens count the same whichever model served
    expected = ((1_000 * 2.0 + 100 * 20.0)      # served as the dated snapshot, which has a price of its own
                + (500 * 1.25 + 50 * 10.0)      # an unpriced served name: the price of the model asked
                + (2_000 * 3.0 + 200 * 15.0)) / 1e6  # the primary again
    assert cost == pytest.approx(expected) and today == pytest.approx(expected)


@pytest.mark.parametrize("ceiling, asked", [(1.0, False), (5.0, True)])
def test_a_fallback_dearer_than_the_ceiling_is_never_asked(tmp_path: Path, agentdesk_home: Path,
                                                         ceiling: float, asked: bool) -> None:
    with route_env(tmp_path, prices=PRICES, fallback_price_ceiling=ceiling) as env:
        env.a.script(OVERLOADED, OVERLOADED, OVERLOADED, *([Turn(parts=(Text("opus"),))] if asked else []))

        async def body() -> str:
            agent = env.kernel.agents.spawn("thrifty", provider="anthropic", model="claude-sonnet-4-5",
                                            fallbacks=("anthropic:claude-opus-4-1",))
            info = await env.ask(agent.id, "go")
            await env.aclose()
            return info.state

        assert run(body()) == ("idle" if asked else "failed")
        env.a.assert_done()
    assert [r.body["model"] for r in env.a.requests].count("claude-opus-4-1") == (1 if asked else 0)
