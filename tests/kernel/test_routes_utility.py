"""The utility route (issue 25, point 6): housekeeping goes to Settings' small model, is on the record as
``route: utility`` with its purpose, is billed to the agent it served, and never enters its conversation
— not now, not after a restart."""

from __future__ import annotations

from pathlib import Path

from kernel.agents.utility import utility_call
from kernel.compose import build_kernel
from kernel.core.messages import user_text
from kernel.providers.scripted import ScriptedProvider
from tests.fakes import Text, Turn, Usage

from .conftest import run
from .routes_env import route_env


def test_a_summary_goes_to_the_utility_model_and_is_billed_not_remembered(tmp_path: Path,
                                                                          agentdesk_home: Path) -> None:
    with route_env(tmp_path, utility_model="anthropic:claude-haiku-4-5") as env:
        env.b.script(Turn(parts=(Text("the agent's own answer"),), usage=Usage(100, 10)))
        env.a.script(Turn(parts=(Text("A short summary."),), usage=Usage(400, 20),
                          served_model="claude-haiku-4-5-20251001"))

        async def body() -> None:
            info = env.kernel.agents.spawn("worker", provider="openai", model="gpt-5")
            await env.ask(info.id, "do the thing")
            agent = env.kernel.agents.process(info.id)
            before = agent.conversation
            reply = await utility_call(agent, "compaction", "Summarise the conversation.",
                                       (user_text("the whole conversation"),))
            assert (reply.text, reply.served_model) == ("A short summary.", "claude-haiku-4-5-20251001")
            assert agent.conversation == before  # nothing entered the conversation
            assert env.kernel.agents.get(info.id).used == 110 + 420  # billed to the agent it served
            await env.aclose()
            again = build_kernel(ledger=env.ledger, settings=env.kernel.settings,
                                 providers=lambda _n: ScriptedProvider(), clock=env.clock, restore=True)
            assert again.agents.conversation(info.id) == before  # the record folds it out too
            assert again.agents.get(info.id).used == 530 and again.agents.get(info.id).state == "idle"

        run(body())
        env.a.assert_done()
        env.b.assert_done()
    summary = env.requests()[-1]
    assert (summary.route, summary.reason, summary.provider, summary.model, summary.served_model) == (
        "utility", "compaction", "anthropic", "claude-haiku-4-5", "claude-haiku-4-5-20251001")
    assert env.a.requests[0].body.get("tools") is None  # housekeeping gets no tools
    assert [r.route for r in env.requests()] == ["agent", "utility"]
