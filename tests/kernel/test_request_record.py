"""The ``request`` entry carries what the provider said of a request: its id and its cache tokens;
cost prices cached input at the cached price, before and after a restart, per agent and for today.
(The adapters' side, through the real SDKs, is in tests/providers/test_contract.py.)"""

from __future__ import annotations

import pytest

from kernel.providers.base import StreamEnd, TextChunk, UsageReport
from kernel.providers.scripted import ScriptedTurn
from ledger import ModelRequest

from .conftest import run
from .test_durable import restarted

PRICES = {"anthropic": {"claude-sonnet-4-5": {"input": 3.0, "output": 15.0, "cached_input": 0.3}}}


def test_request_id_and_cache_tokens_are_recorded_and_priced(make_env):
    env = make_env(prices=PRICES)
    env.provider.script(
        ScriptedTurn((UsageReport(1_000_000, 0, cache_read_tokens=600_000, cache_write_tokens=100_000),
                      TextChunk("hi"), UsageReport(output_tokens=100_000), StreamEnd("end_turn", "req_abc123"))),
        ScriptedTurn((UsageReport(1_000_000, 0, cache_read_tokens="many"),  # hostile: counts 0
                      UsageReport(output_tokens=0), StreamEnd("end_turn"))),
    )
    a = env.kernel.spawn("cached", provider="anthropic", model="claude-sonnet-4-5", budget=10_000_000)

    async def go():
        env.kernel.send(a.id, "hello")
        await env.kernel.wait(a.id)
        env.kernel.send(a.id, "again")
        await env.kernel.wait(a.id)

    run(go())
    env.provider.assert_done()
    first, second = [e for e in reversed(env.ledger.page(kind="request")) if isinstance(e, ModelRequest)]
    assert (first.request_id, first.cache_read_tokens, first.cache_write_tokens) == ("req_abc123", 600_000, 100_000)
    assert (second.request_id, second.cache_read_tokens, second.cache_write_tokens) == (None, 0, 0)
    # 400k fresh input at 3.0, 600k cached at 0.3, 100k output at 15.0; then 1M fresh input at 3.0
    expected = 1.2 + 0.18 + 1.5 + 3.0
    assert env.kernel.agent(a.id).cost == pytest.approx(expected)
    assert env.kernel.spend_today().cost == pytest.approx(expected)
    again = restarted(env)
    assert again.agent(a.id).cost == pytest.approx(expected)  # the cached tokens come back from the record
    assert again.spend_today().cost == pytest.approx(expected)
