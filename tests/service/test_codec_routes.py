"""What model routes add to the kernel's values crosses the socket: a breaker's ledger entry, an agent's
degraded note, a request entry's who-answered fields (issue 25)."""

from __future__ import annotations

from kernel.api import AgentInfo, AgentState, LedgerAppended, ModelRequest, RouteBreaker, UsageUpdated
from kernel.service.codec import decode, encode


def test_route_values_round_trip() -> None:
    values = [
        LedgerAppended(RouteBreaker(actor="kernel", seq=7, ts=1.0, provider="anthropic", model="claude-sonnet-4-5",
                                    state="open", reason="anthropic overloaded ×3", until=31.5)),
        UsageUpdated(AgentInfo("a1", "w", AgentState.RUNNING, "", "anthropic", "m", 1000, 1, 2, 0.0, "/w",
                               degraded="anthropic overloaded ×3 — answering with openai:gpt-5")),
        LedgerAppended(ModelRequest(actor="a1", seq=8, reason="user-turn", provider="openai", model="gpt-5",
                                    status="ok", requested_provider="anthropic", requested_model="claude-sonnet-4-5",
                                    served_provider="openai", served_model="gpt-5-2025-08-07", attempt=2,
                                    route_reason="fallback after anthropic overloaded ×3")),
    ]
    for value in values:
        assert decode(encode(value)) == value
