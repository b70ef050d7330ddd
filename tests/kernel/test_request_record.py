"""The ``request`` entry carries what the provider said of a request: its id and its cache tokens;
cost prices cached input at the cached price and cache writes at the cache-write price, before and after
a restart, per agent and for today; a cache write with no price leaves the request unpriced.
(The adapters' side, through the real SDKs, is in tests/providers/test_contract.py.)"""

from __future__ import annotations

import pytest

from kernel.providers.base import StreamEnd, TextChunk, UsageReport
from kernel.providers.scripted import ScriptedTurn
from ledger import ModelRequest

from .conftest import run
from .test_durable import restarted

PRICES = {"anthropic": {"claude-sonnet-4-5": {"input": 3.0, "output": 15.0, "cached_input": 0.3, "cache_write": 3.75}},
          "openai": {"gpt-5": {"input": 1.25, "output": 10.0, "cached_input": 0.125}}}  # no cache-write price


def test_request_id_and_cache_tokens_are_recorded_and_priced(make_env):
    # a window that holds the million-token figures, so the context engine does not compact between the turns
    env = make_env(prices=PRICES, context_window=10_000_000)
    env.provider.script(
        ScriptedTurn((UsageReport(1_000_000, 0, cache_read_tokens=600_000, cache_write_tokens=100_000),
                      TextChunk("hi"), UsageReport(output_tokens=100_000), StreamEnd("end_turn", "req_abc123"))),
        ScriptedTurn((UsageReport(1_000_000, 0, cache_read_tokens="many"),  # hostile: counts 0
                      UsageReport(output_tokens=0), StreamEnd("end_turn"))),
    )
    a = env.kernel.agents.spawn("cached", provider="anthropic", model="claude-sonnet-4-5", budget=10_000_000)

    async def go():
        env.kernel.agents.send(a.id, "hello")
        await env.kernel.agents.wait(a.id)
        env.kernel.agents.send(a.id, "again")
        await env.kernel.agents.wait(a.id)

    run(go())
    env.provider.assert_done()
    first, second = [e for e in reversed(env.ledger.page(kind="request")) if isinstance(e, ModelRequest)]
    assert (first.request_id, first.cache_read_tokens, first.cache_write_tokens) == ("req_abc123", 600_000, 100_000)
    assert (second.request_id, second.cache_read_tokens, second.cache_write_tokens) == (None, 0, 0)
    # 300k fresh input at 3.0, 600k cached at 0.3, 100k written at 3.75, 100k output at 15.0; then 1M at 3.0
    expected = 0.9 + 0.18 + 0.375 + 1.5 + 3.0
    assert env.kernel.agents.get(a.id).cost == pytest.approx(expected)
    assert env.kernel.agents.spend_today().cost == pytest.approx(expected)
    again = restarted(env)
    assert again.agents.get(a.id).cost == pytest.approx(expected)  # the cached tokens come back from the record
    assert again.agents.spend_today().cost == pytest.approx(expected)


def test_a_cache_write_without_a_price_is_tokens_only(make_env):
    env = make_env(prices=PRICES)
    env.provider.script(
        ScriptedTurn((UsageReport(1_000, 0, cache_write_tokens=400), TextChunk("hi"), UsageReport(output_tokens=10),
                      StreamEnd("end_turn", "resp_1"))),
        ScriptedTurn((UsageReport(1_000, 0), TextChunk("hi"), UsageReport(output_tokens=10), StreamEnd("end_turn"))),
    )
    a = env.kernel.agents.spawn("writer", provider="openai", model="gpt-5", budget=10_000_000)
    b = env.kernel.agents.spawn("plain", provider="openai", model="gpt-5", budget=10_000_000)

    async def go():
        for agent in (a, b):
            env.kernel.agents.send(agent.id, "hello")
            await env.kernel.agents.wait(agent.id)

    run(go())
    env.provider.assert_done()
    first = next(e for e in env.ledger.page(kind="request", actor=a.id) if isinstance(e, ModelRequest))
    assert (first.cache_read_tokens, first.cache_write_tokens) == (0, 400)
    assert env.kernel.agents.get(a.id).cost is None  # never input's price for a write OpenAI names no price for
    assert env.kernel.agents.get(b.id).cost == pytest.approx((1_000 * 1.25 + 10 * 10.0) / 1e6)
    spend = env.kernel.agents.spend_today()
    assert spend.unpriced_tokens == 1_010 and spend.cost == pytest.approx((1_000 * 1.25 + 10 * 10.0) / 1e6)
    assert restarted(env).agents.get(a.id).cost is None
