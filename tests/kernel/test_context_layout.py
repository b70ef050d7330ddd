"""The cache-friendly layout, piece by piece: coarse state, tool order, breakpoints, state blocks in place."""

from __future__ import annotations

import json

from kernel.context.layout import LOOKBACK_BLOCKS, cache_breaks, ordered_tools, place, with_states, without_states
from kernel.context.state import State, block_if_changed, budget_step, is_state_block, lease_state, render
from kernel.core.messages import Message, TextPart, ToolResultPart, ToolSpec, ToolUse, user_text
from kernel.providers.base import ProviderRequest
from kernel.providers.host_protocol import decode_request, request_line

NOW = 1_790_000_000.0


def _state(**kw: object) -> State:
    base: dict[str, object] = dict(budget_limit=200_000, budget_step=1.0, leases=(), changes=(), attached=True,
                                   date="Monday 21 September 2026")
    base.update(kw)
    return State(**base)  # type: ignore[arg-type]


def test_the_budget_is_said_again_only_when_it_crosses_a_threshold() -> None:
    steps = [budget_step(left, 200_000) for left in (200_000, 160_000, 150_001, 149_999, 90_000, 1_000, 0)]
    assert steps == [1.0, 1.0, 1.0, 0.75, 0.5, 0.05, 0.05]
    first = render(_state())
    assert block_if_changed(_state(), first) == ""  # a few thousand tokens spent: nothing new to say
    assert "less than 75%" in block_if_changed(_state(budget_step=0.75), first)


def test_a_lease_is_said_on_grant_in_its_last_minute_and_at_its_end() -> None:
    granted = render(_state(leases=(lease_state("fs.read", NOW + 900, NOW),)))
    later = render(_state(leases=(lease_state("fs.read", NOW + 900, NOW + 600),)))
    assert later == granted  # minutes passing change nothing
    last = render(_state(leases=(lease_state("fs.read", NOW + 900, NOW + 850),)))
    assert last != granted and "less than a minute left" in last
    assert "Leases: none." in render(_state())
    assert is_state_block(granted) and not is_state_block("please read [Agentdesk state]")


def test_tools_keep_their_order_and_new_ones_are_appended() -> None:
    spec = {n: ToolSpec(n, n, {}) for n in ("fs_read", "b_tool", "a_tool", "mcp_x")}
    tools, order = ordered_tools((), (spec["fs_read"], spec["b_tool"], spec["a_tool"]))
    assert order == ("a_tool", "b_tool", "fs_read")
    tools, order = ordered_tools(order, (spec["mcp_x"], spec["fs_read"], spec["a_tool"], spec["b_tool"]))
    assert order == ("a_tool", "b_tool", "fs_read", "mcp_x") and tools[-1] is spec["mcp_x"]
    _, order = ordered_tools(order, (spec["fs_read"], spec["mcp_x"]))
    assert order == ("fs_read", "mcp_x")  # a tool gone is dropped, the rest keep their places


def _turn(calls: int, base: int) -> tuple[Message, Message]:
    uses = tuple(ToolUse(f"c{base + i}", "fs_read", {}) for i in range(calls))
    results = tuple(ToolResultPart(f"c{base + i}", "fs_read", "x") for i in range(calls))
    return Message("assistant", uses), Message("user", results)


def test_a_breakpoint_on_the_newest_block_and_on_the_previous_request_after_a_long_turn() -> None:
    history = (user_text("go"), *_turn(3, 0))
    assert cache_breaks(history, 1) == (2,)
    long = history + _turn(LOOKBACK_BLOCKS, 10)
    assert cache_breaks(long, len(history)) == (len(history) - 1, len(long) - 1)
    assert cache_breaks((), 0) == ()


def test_state_blocks_stay_where_they_were_sent_when_the_user_adds_to_the_turn() -> None:
    conv = (user_text("go"),)
    states = [place(conv, "[Agentdesk state]\n- one")]
    merged = (Message("user", (TextPart("go"), TextPart("and more"))),)  # a failed request, then more words
    states.append(place(merged, "[Agentdesk state]\n- two"))
    sent = with_states(merged, [s for s in states if s is not None])
    assert [p.text for p in sent[0].parts if isinstance(p, TextPart)] == [
        "go", "[Agentdesk state]\n- one", "and more", "[Agentdesk state]\n- two"]
    assert without_states(sent) == merged
    assert place((Message("assistant", (TextPart("hi"),)),), "x") is None  # never a turn of its own


def test_cache_hints_cross_the_provider_host_protocol() -> None:
    request = ProviderRequest(system="s", messages=(user_text("hi"),), model="m", cache_key="a1", cache_ttl="1h",
                              cache_breaks=(0,))
    line = json.loads(request_line(1, request))
    assert decode_request(line["request"]) == request


def test_results_are_matched_to_their_entries_in_a_parallel_batch_and_across_reused_ids() -> None:
    from kernel.context.clearing import result_seqs

    first = Message("user", (ToolResultPart("call_0", "fs_read", "a"), ToolResultPart("call_1", "fs_read", "b")))
    again = Message("user", (ToolResultPart("call_0", "fs_read", "c"),))  # a local server reused the id
    outcomes = [(11, "call_1"), (12, "call_0"), (20, "call_0")]  # the batch finished out of order
    assert result_seqs((user_text("go"), first, again), outcomes) == [12, 11, 20]
    assert result_seqs((first,), []) == [0, 0]
