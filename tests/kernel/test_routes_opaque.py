"""A conversation that moves between providers mid-turn drops the other model's opaque data and stays
valid on each (issue 25, point 4): Gemini → Anthropic → Gemini, through the real SDKs and the fakes."""

from __future__ import annotations

import base64
from pathlib import Path

from kernel.core.messages import Message, TextPart, ToolResultPart, ToolUse
from kernel.routes.opaque import ORIGIN, SKIP_SIGNATURE, for_target
from kernel.routes.target import Target
from tests.fakes import HttpError, Text, ToolCall, Turn
from tests.providers.support import wire_conversation

from .conftest import run
from .routes_env import route_env

SIGNATURE = base64.b64encode(b"gemini's own reasoning state").decode("ascii")
GEMINI_DOWN = Turn(fault=HttpError(503, message="unavailable"))


def test_a_round_trip_gemini_anthropic_gemini_keeps_each_models_own_data(tmp_path: Path,
                                                                        agentdesk_home: Path) -> None:
    with route_env(tmp_path, fallback_price_ceiling=10.0) as env:  # claude costs 6.4× gemini flash
        env.b.script(Turn(parts=(ToolCall("no_such_tool", {"n": 1}, id="fc_1", thought_signature=SIGNATURE),)),
                     GEMINI_DOWN, GEMINI_DOWN, GEMINI_DOWN,  # the tool results' request: retries spent
                     Turn(parts=(Text("gemini is back"),)))
        env.a.script(Turn(parts=(ToolCall("no_such_tool", {"n": 2}, id="toolu_2"),)),
                     Turn(parts=(Text("done by claude"),)))

        async def body() -> list[str]:
            agent = env.kernel.agents.spawn("mover", provider="gemini", model="gemini-2.5-flash",
                                            fallbacks=("anthropic:claude-sonnet-4-5",), any_vendor=True)
            states = [(await env.ask(agent.id, "one")).state]
            env.clock.advance(120.0)  # past the breaker's window: the next turn probes gemini
            states.append((await env.ask(agent.id, "two")).state)
            kept = env.kernel.agents.conversation(agent.id)
            await env.aclose()
            assert kept[1].tool_uses[0].meta["thought_signature"] == SIGNATURE  # the record keeps it
            return states

        assert run(body()) == ["idle", "idle"]
        env.a.assert_done()
        env.b.assert_done()
    to_claude = env.a.requests[0].body
    assert all("signature" not in str(block) for m in to_claude["messages"] for block in m["content"])
    _, seen = wire_conversation("anthropic", to_claude)
    assert ("assistant", "call", "fc_1", "no_such_tool", {"n": 1}) in seen  # the neutral history went over
    back = env.b.requests[-1].body
    calls = [p for c in back["contents"] for p in c["parts"] if "functionCall" in p]
    signatures = {p["functionCall"]["id"]: p.get("thoughtSignature") for p in calls}
    assert signatures == {"fc_1": SIGNATURE,  # its own signature, echoed to the model that made it
                          "toolu_2": SKIP_SIGNATURE}  # claude's call: Google's documented "not ours" value
    _, history = wire_conversation("gemini", back)
    # the first user turn carries its state block as a second text part (kernel/context)
    assert [h[1] for h in history] == ["text", "text", "call", "result", "call", "result", "text", "text"]


def test_nothing_foreign_leaves_the_conversation_as_it_was() -> None:
    own = Message("assistant", (ToolUse("c1", "t", {}, {"thought_signature": "x", ORIGIN: "gemini:g"}),))
    plain = Message("assistant", (TextPart("hi"), ToolUse("c2", "t", {})))
    results = Message("user", (ToolResultPart("c1", "t", "ok"),))
    conversation = (own, results, plain)
    assert for_target(conversation, Target("gemini", "g")) is conversation
    moved = for_target(conversation, Target("openai", "gpt-5"))
    assert moved[0].tool_uses[0].meta == {ORIGIN: "gemini:g"}  # the signature stays home
    assert moved[1] is results and moved[2] is plain
    other_gemini = for_target(conversation, Target("gemini", "h"))
    assert other_gemini[0].tool_uses[0].meta["thought_signature"] == SKIP_SIGNATURE  # another model's: not sent
