"""Breakers across a restart (issue 25): a kernel started while a model's breaker is open rebuilds it from
the ``route.breaker`` entries, so the model stays skipped until its recorded time and is then probed once,
instead of being sent a full retry budget by a kernel that forgot it was down a minute ago."""

from __future__ import annotations

from pathlib import Path

from kernel.compose import build_kernel
from kernel.facade import Kernel
from kernel.routes.breaker import BASE_WINDOW_S, MAX_WINDOW_S
from kernel.routes.restart import remembered
from kernel.routes.target import Target
from ledger import RouteBreaker

from .conftest import run
from .routes_env import RETRY_BUDGET_S, RouteEnv, route_env
from .test_routes import OTHER, OVERLOADED, PRIMARY, ok


def restarted(env: RouteEnv) -> Kernel:
    """A new kernel over the same ledger and clock, as ``agentdesk kernel`` starts after a stop."""
    return build_kernel(ledger=env.ledger, settings=env.kernel.settings, providers=env.providers.__getitem__,
                        clock=env.clock, restore=True)


def test_a_breaker_open_at_a_restart_stays_open_until_its_time_then_is_probed_once(tmp_path: Path,
                                                                                   agentdesk_home: Path) -> None:
    with route_env(tmp_path) as env:
        env.a.script(OVERLOADED, OVERLOADED, OVERLOADED, ok("back"))
        env.b.script(ok("fallback before"), ok("fallback after the restart"))

        async def body() -> list[str]:
            agent = env.kernel.agents.spawn("routed", provider=PRIMARY[0], model=PRIMARY[1], fallbacks=(OTHER,),
                                            any_vendor=True)
            states = [(await env.ask(agent.id, "one")).state]
            await env.kernel.aclose()  # the kernel stops a few seconds after the primary went down
            env.clock.advance(10.0)
            again = restarted(env)
            try:
                states.append((await _ask(again, agent.id, "two")).state)  # still open: the fallback at once
                env.clock.advance(BASE_WINDOW_S)  # its recorded time has passed: one probe
                states.append((await _ask(again, agent.id, "three")).state)
            finally:
                await again.aclose()
                await env.aclose()
            return states

        start = env.clock.now()
        assert run(body()) == ["idle", "idle", "idle"]
        env.a.assert_done()  # three tries before the restart, one probe after its window: nothing else
        env.b.assert_done()
    to_primary = [(r.start - start, r.status, r.attempt) for r in env.requests() if r.provider == "anthropic"]
    assert to_primary == [(0.0, "error", 1), (RETRY_BUDGET_S + 10.0 + BASE_WINDOW_S, "ok", 1)]
    after = [r for r in env.requests() if r.provider == "openai"][1]
    assert after.route_reason.startswith("fallback after anthropic overloaded ×3 (resting until ")
    assert [b.state for b in env.breakers()] == ["open", "half_open", "closed"]


async def _ask(kernel: Kernel, agent_id: str, text: str):
    kernel.agents.send(agent_id, text)
    return await kernel.agents.wait(agent_id)


def _entry(state: str, ts: float, until: float | None = None, model: object = "claude-sonnet-4-5",
           reason: str = "anthropic overloaded ×3") -> RouteBreaker:
    return RouteBreaker(actor="kernel", ts=ts, provider="anthropic", model=model, state=state,  # type: ignore[arg-type]
                        reason=reason, until=until)


def test_what_the_record_says_of_each_breaker_at_start() -> None:
    target = Target(*PRIMARY)
    now = 10_000.0
    # newest first: the last word on each model counts
    [kept] = remembered([_entry("open", now - 20, now + 40)], now)
    assert (kept.target, kept.until, kept.window_s, kept.reason) == (target, now + 40, 60.0, "anthropic overloaded ×3")
    assert remembered([_entry("closed", now - 5), _entry("open", now - 20, now + 40)], now) == []
    # stopped mid-probe: open with its window over (the next request probes), the window it was probing kept
    [probe] = remembered([_entry("half_open", now - 3, reason="probing"), _entry("open", now - 123, now - 3)], now)
    assert (probe.until, probe.window_s, probe.reason) == (now - 3, 120.0, "anthropic overloaded ×3")
    # a window over long ago is forgotten; a window past the cap is held to it
    assert remembered([_entry("open", now - 5_000, now - MAX_WINDOW_S - 1)], now) == []
    [capped] = remembered([_entry("open", now, now + 10 * MAX_WINDOW_S)], now)
    assert capped.window_s == MAX_WINDOW_S
    # hostile fields skip the entry, never crash the start
    assert remembered([_entry("open", now, float("nan")), _entry("open", now, now + 30, model=7)], now) == []
    assert remembered([_entry("open", now, None)], now) == []
