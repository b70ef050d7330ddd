"""Model routes through the real SDKs and two loopback fakes, on simulated time (issue 25, points 1-3).

The figures of the issue: with the primary answering 529 for 60 simulated seconds every turn completes
on the fallback, adding at most the retry budget (plus nothing: the clock only moves in retry waits),
the primary gets one probe per open window and answers again at the first probe after it recovered;
a reply cut mid-stream is never asked of another model (0 duplicated text); an agent that did not opt
in sends 0 requests to another vendor; every ``request`` entry names the requested and the served model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.core.errors import ConfigError
from kernel.core.events import TextDelta, UsageUpdated
from tests.fakes import Cut, HttpError, Text, ToolCall, Turn

from .conftest import run
from .routes_env import RETRY_BUDGET_S, route_env

PRIMARY = ("anthropic", "claude-sonnet-4-5")
OTHER = "openai:gpt-5"
OVERLOADED = Turn(fault=HttpError(529, message="Overloaded", kind="overloaded_error"))


def ok(text: str = "fine", served: str | None = None) -> Turn:
    return Turn(parts=(Text(text),), served_model=served)



def asked_once(env, name: str) -> str:
    """The state of a new agent on PRIMARY with OTHER as its fallback (another vendor allowed), after one turn."""
    async def body() -> str:
        agent = env.kernel.agents.spawn(name, provider=PRIMARY[0], model=PRIMARY[1], fallbacks=(OTHER,),
                                        any_vendor=True)
        info = await env.ask(agent.id, "go")
        await env.aclose()
        return info.state

    return run(body())

def test_a_60_second_outage_is_answered_on_the_fallback_with_one_probe_per_window(tmp_path: Path,
                                                                                    agentdesk_home: Path) -> None:
    with route_env(tmp_path) as env:
        start = env.clock.now()
        # 3 tries (retries spent), the probe at +31.5 s, the probe at +91.5 s that finds it back, the next turn
        env.a.script(OVERLOADED, OVERLOADED, OVERLOADED, OVERLOADED, ok("back", "claude-sonnet-4-5-20250929"),
                     ok("still back"))
        env.b.script(*[ok(f"fallback {i}", "gpt-5-2025-08-07") for i in range(9)])

        async def body() -> list[tuple[str, float, str]]:
            agent = env.kernel.agents.spawn("routed", provider=PRIMARY[0], model=PRIMARY[1], fallbacks=(OTHER,),
                                            any_vendor=True)
            seen = []
            for turn in range(11):
                before = env.clock.now()
                info = await env.ask(agent.id, f"turn {turn}")
                seen.append((info.state, env.clock.now() - before, info.degraded))
                env.clock.advance(10.0)  # the user reads and types for 10 simulated seconds
            await env.aclose()
            return seen

        seen = run(body())
        env.a.assert_done()
        env.b.assert_done()
    assert [state for state, _, _ in seen] == ["idle"] * 11  # every turn completed
    assert seen[0][1] == pytest.approx(RETRY_BUDGET_S)  # the first turn waited out the retries, no more
    assert all(added == 0.0 for _, added, _ in seen[1:])  # later turns skip the open breaker at once
    assert seen[0][2] == "anthropic overloaded ×3 — answering with openai:gpt-5"
    assert seen[-1][2] == seen[-2][2] == ""  # back on its primary: no longer degraded
    requests = env.requests()
    to_primary = [(r.start - start, r.status) for r in requests if r.provider == "anthropic"]
    # one request per open window: the first turn (3 tries), the probe at +31.5 s (window 30 s), the probe
    # at +91.5 s (window 60 s) — the first after the primary recovered at +60 s — and then the primary again
    assert to_primary == [(0.0, "error"), (31.5, "error"), (91.5, "ok"), (101.5, "ok")]
    assert [(b.state, b.provider, b.model) for b in env.breakers()] == [
        ("open", *PRIMARY), ("half_open", *PRIMARY), ("open", *PRIMARY), ("half_open", *PRIMARY),
        ("closed", *PRIMARY)]
    assert env.breakers()[0].until == pytest.approx(start + RETRY_BUDGET_S + 30.0)
    # who answered, on every entry
    assert all((r.requested_provider, r.requested_model) == PRIMARY for r in requests)
    fallback = [r for r in requests if r.provider == "openai"]
    assert len(fallback) == 9 and all(r.status == "ok" for r in fallback)
    assert all((r.served_provider, r.served_model) == ("openai", "gpt-5-2025-08-07") for r in fallback)
    assert fallback[0].attempt == 2 and fallback[0].route_reason == "fallback after anthropic overloaded ×3"
    assert fallback[1].attempt == 1 and fallback[1].route_reason.startswith(
        "fallback after anthropic overloaded ×3 (resting until ")
    back = [r for r in requests if r.provider == "anthropic" and r.status == "ok"]
    assert back[0].served_model == "claude-sonnet-4-5-20250929" and back[0].route_reason == ""
    assert all(r.served_model for r in requests if r.status == "ok")


def test_a_reply_cut_mid_stream_is_never_asked_again_elsewhere(tmp_path: Path, agentdesk_home: Path) -> None:
    with route_env(tmp_path) as env:
        env.a.script(Turn(parts=(Text("one two three four five six", chunks=6),), fault=Cut(4)))

        assert asked_once(env, "cut") == "failed"
        env.a.assert_done()
    shown = "".join(e.text for e in env.events if isinstance(e, TextDelta))
    assert shown and "one two three four five six".startswith(shown)  # each piece shown once, none again
    assert env.b.requests == []  # 0 requests to the fallback: nothing the user saw is generated twice
    [request] = env.requests()
    assert request.status == "error" and request.attempt == 1


def test_no_request_reaches_another_vendor_without_the_opt_in(tmp_path: Path, agentdesk_home: Path) -> None:
    with route_env(tmp_path, fallbacks={"anthropic": (OTHER,)}) as env:  # a default route naming another vendor
        env.a.script(OVERLOADED, OVERLOADED, OVERLOADED)

        async def body() -> str:
            with pytest.raises(ConfigError, match="another vendor"):
                env.kernel.agents.spawn("asked", provider=PRIMARY[0], model=PRIMARY[1], fallbacks=(OTHER,))
            agent = env.kernel.agents.spawn("defaulted", provider=PRIMARY[0], model=PRIMARY[1])
            info = await env.ask(agent.id, "go")
            await env.aclose()
            return info.state

        assert run(body()) == "failed"
        env.a.assert_done()
    assert env.b.requests == []  # 0 requests to another vendor


def test_a_same_vendor_fallback_is_allowed_by_default(tmp_path: Path, agentdesk_home: Path) -> None:
    with route_env(tmp_path) as env:
        env.a.script(OVERLOADED, OVERLOADED, OVERLOADED, ok("smaller model"))

        async def body() -> str:
            agent = env.kernel.agents.spawn("same", provider=PRIMARY[0], model=PRIMARY[1],
                                            fallbacks=("anthropic:claude-haiku-4-5",))
            info = await env.ask(agent.id, "go")
            await env.aclose()
            return info.state

        assert run(body()) == "idle"
        env.a.assert_done()
    assert [r.body["model"] for r in env.a.requests] == ["claude-sonnet-4-5"] * 3 + ["claude-haiku-4-5"]
    last = env.requests()[-1]
    assert (last.model, last.served_model, last.requested_model) == ("claude-haiku-4-5", "claude-haiku-4-5",
                                                                     "claude-sonnet-4-5")


@pytest.mark.parametrize("status", [401, 400])
def test_a_refused_key_or_a_bad_request_never_falls_over(tmp_path: Path, agentdesk_home: Path, status: int) -> None:
    with route_env(tmp_path) as env:
        env.a.script(Turn(fault=HttpError(status)))

        assert asked_once(env, "refused") == "failed"
        env.a.assert_done()
    assert env.b.requests == [] and env.breakers() == []


def test_a_retry_after_beyond_the_cap_falls_over_at_once(tmp_path: Path, agentdesk_home: Path) -> None:
    with route_env(tmp_path) as env:
        env.a.script(Turn(fault=HttpError(429, retry_after=120.0)))
        env.b.script(ok())

        async def body() -> tuple[str, float]:
            agent = env.kernel.agents.spawn("later", provider=PRIMARY[0], model=PRIMARY[1], fallbacks=(OTHER,),
                                            any_vendor=True)
            before = env.clock.now()
            info = await env.ask(agent.id, "go")
            await env.aclose()
            return info.state, env.clock.now() - before

        assert run(body()) == ("idle", 0.0)  # no wait at all: the fallback answers now
        env.a.assert_done()
        env.b.assert_done()
    opened = env.breakers()[0]
    assert opened.state == "open" and opened.until == pytest.approx(env.clock.now() + 120.0)  # Retry-After honoured


def test_the_fallback_answers_the_rest_of_the_turn_and_the_primary_is_probed_next_turn(tmp_path: Path,
                                                                                       agentdesk_home: Path) -> None:
    with route_env(tmp_path) as env:
        env.a.script(OVERLOADED, OVERLOADED, OVERLOADED, ok("primary again"))
        env.b.script(Turn(parts=(ToolCall("no_such_tool", {}),)), ok("done on the fallback"))

        async def body() -> list[str]:
            agent = env.kernel.agents.spawn("loop", provider=PRIMARY[0], model=PRIMARY[1], fallbacks=(OTHER,),
                                            any_vendor=True)
            states = [(await env.ask(agent.id, "use a tool")).state]
            env.clock.advance(60.0)
            states.append((await env.ask(agent.id, "and now")).state)
            await env.aclose()
            return states

        assert run(body()) == ["idle", "idle"]
        env.a.assert_done()
        env.b.assert_done()
    reasons = [(r.provider, r.reason, r.route_reason) for r in env.requests()]
    assert reasons == [("anthropic", "user-turn", ""),
                       ("openai", "user-turn", "fallback after anthropic overloaded ×3"),
                       ("openai", "tool-results", "fallback kept for this turn"),
                       ("anthropic", "user-turn", "")]
    updates = [e.agent.degraded for e in env.events if isinstance(e, UsageUpdated)]
    assert "anthropic overloaded ×3 — answering with openai:gpt-5" in updates and updates[-1] == ""


def test_settings_default_route_serves_a_new_agent(tmp_path: Path, agentdesk_home: Path) -> None:
    """What the desktop's New Ask gets: the agent spawned with no route of its own takes Settings' default."""
    with route_env(tmp_path, fallbacks={"anthropic": ("anthropic:claude-haiku-4-5",)}) as env:
        env.a.script(OVERLOADED, OVERLOADED, OVERLOADED, ok("from the default route"))

        async def body() -> str:
            agent = env.kernel.agents.spawn("plain", provider=PRIMARY[0], model=PRIMARY[1])
            info = await env.ask(agent.id, "go")
            await env.aclose()
            return info.state

        assert run(body()) == "idle"
        env.a.assert_done()
    assert env.a.requests[-1].body["model"] == "claude-haiku-4-5"
