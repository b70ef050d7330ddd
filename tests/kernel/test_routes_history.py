"""History names the models that answered an agent when they were not its own (issue 25): a fallback's, not
a dated snapshot of its own model, and not the utility model that summarized for it. (The History window's
cell: tests/desktop/test_routes_degraded.py.)"""

from __future__ import annotations

from pathlib import Path

from ledger import ModelRequest

from .conftest import run
from .routes_env import route_env
from .test_routes import OTHER, OVERLOADED, PRIMARY, ok


def test_history_names_a_fallback_that_answered_and_nothing_else(tmp_path: Path, agentdesk_home: Path) -> None:
    with route_env(tmp_path) as env:
        env.a.script(OVERLOADED, OVERLOADED, OVERLOADED, ok("own model", "claude-sonnet-4-5-20250929"))
        env.b.script(ok("fallback", "gpt-5-2025-08-07"))

        async def body() -> tuple[str, str]:
            routed = env.kernel.agents.spawn("routed", provider=PRIMARY[0], model=PRIMARY[1], fallbacks=(OTHER,),
                                             any_vendor=True)
            await env.ask(routed.id, "one")
            plain = env.kernel.agents.spawn("plain", provider=PRIMARY[0], model=PRIMARY[1], fallbacks=())
            await env.ask(plain.id, "two")
            env.ledger.append(ModelRequest(actor=plain.id, reason="compaction", provider="anthropic",
                                           model="claude-haiku-4-5", status="ok", route="utility",
                                           requested_provider="anthropic", requested_model="claude-haiku-4-5",
                                           served_provider="anthropic", served_model="claude-haiku-4-5"))
            for agent in (routed, plain):
                env.kernel.agents.archive(agent.id)
            await env.aclose()
            return routed.id, plain.id

        routed, plain = run(body())
        items = {i.id: i for i in env.kernel.agents.history()}
        assert items[routed].served == ("openai:gpt-5-2025-08-07",)
        assert items[plain].served == ()  # its own model's snapshot, and a summary, are not "another model"
        assert [i.id for i in env.kernel.agents.history("gpt-5")] == [routed]  # found by who answered
