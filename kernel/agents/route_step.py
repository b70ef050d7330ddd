"""One reply over the agent's route: the primary, else each allowed fallback in turn.

    for each candidate of the plan (the fallback kept for this turn first):
      breaker open?        → skip it (the last candidate is always tried)
      request the turn     (a probe without retries; others give up on a wait beyond the cap)
      failed, may fall over (kernel/routes/fallover) and a candidate is left → note it, next
      answered             → keep this one for the rest of the turn (tool loop included)

Every candidate tried is its own ``request`` entry, numbered (``attempt``) and
with the reason it was tried; breaker changes are ``route.breaker`` entries.
At the next user turn the agent starts from its primary again (through its
breaker: a probe when the window is over). An agent without fallbacks makes
exactly the request it always made.
"""

from __future__ import annotations

import asyncio
import time

from ledger import KERNEL, RouteBreaker

from ..core.errors import ProviderError
from ..providers.retry import RetryLimits
from ..routes.breaker import Go, Skip, Transition
from ..routes.fallover import falls_over, failure_words
from ..routes.restart import READ_BACK, remembered
from ..routes.route import Route, plan
from ..routes.target import Attempt, Target
from .process import AgentProcess
from .records import USER_TURN
from .services import Services
from .turn import AssistantTurn, request_turn
from .widen_step import wide_enough


def route_of(agent: AgentProcess) -> Route:
    return agent.route or Route(Target(agent.provider, agent.model))


async def request_routed_turn(agent: AgentProcess) -> AssistantTurn:
    """The next reply, from the first candidate of the agent's route that answers."""
    route = route_of(agent)
    candidates = wide_enough(agent, plan(route, agent.services.settings.prices).candidates)
    if agent.request_reason == USER_TURN and agent.widened is None:
        agent.sticky = None  # a new user turn: the primary gets its chance again
    if agent.sticky in candidates:
        candidates = candidates[candidates.index(agent.sticky):]
    if len(candidates) == 1 and candidates[0] == route.primary:
        agent.sticky, agent.degraded, agent.tried = None, "", route.primary
        return await request_turn(agent)
    return await _over(agent, route, candidates)


async def _over(agent: AgentProcess, route: Route, candidates: tuple[Target, ...]) -> AssistantTurn:
    s = agent.services
    board = s.breakers
    why = agent.widened.reason if agent.widened is not None else ""  # a larger window, after a too-long conversation (widen_step)
    number = 0
    for index, target in enumerate(candidates):
        last = index == len(candidates) - 1
        admission = board.admit(target, s.clock.now(), last=last)
        if isinstance(admission, Skip):
            why = why or f"{admission.reason} (resting until {_clock(admission.until)})"
            continue
        _note(agent, admission.transition)
        number += 1
        agent.tried = target
        agent.attempt = Attempt(target, route.primary, number, _reason(target, route, why, agent.widened is not None),
                                limits=_limits(admission, last))
        try:
            turn = await request_turn(agent)
        except ProviderError as exc:
            if not falls_over(exc):
                _settle(agent, target, admission)
                raise
            _note(agent, board.failed(target, s.clock.now(), failure_words(exc), exc.retry_after))
            if last:
                raise
            why = why or failure_words(exc)
            continue
        except asyncio.CancelledError:
            _settle(agent, target, admission)
            raise
        finally:
            agent.attempt = None
        _note(agent, board.succeeded(target))
        _answered(agent, route, target, why)
        return turn
    raise AssertionError("a route's last candidate is always tried")  # pragma: no cover


def _limits(admission: Go, last: bool) -> RetryLimits | None:
    if admission.probe:
        return RetryLimits(max_retries=0, give_up_beyond_cap=not last)
    return None if last else RetryLimits(give_up_beyond_cap=True)


def _reason(target: Target, route: Route, why: str, widened: bool = False) -> str:
    if target == route.primary:
        return ""
    if widened:
        return why
    return f"fallback after {why}" if why else "fallback kept for this turn"


def _answered(agent: AgentProcess, route: Route, target: Target, why: str) -> None:
    """Keep the candidate that answered for the rest of the turn, and say so while it is not the primary."""
    if target == route.primary:
        agent.sticky, degraded = None, ""
    else:
        agent.sticky = target
        degraded = f"{why} — answering with {target}" if why else agent.degraded or f"answering with {target}"
    if degraded != agent.degraded:
        agent.degraded = degraded
        agent.announce()


def _settle(agent: AgentProcess, target: Target, admission: Go) -> None:
    """A request that ended without a verdict on the model's health releases its probe."""
    if admission.probe:
        agent.services.breakers.released(target)


def _note(agent: AgentProcess, transition: Transition | None) -> None:
    if transition is not None:
        agent.services.record(RouteBreaker(actor=KERNEL, provider=transition.target.provider,
                                           model=transition.target.model, state=str(transition.state),
                                           reason=transition.reason, until=transition.until))


def _clock(when: float) -> str:
    return time.strftime("%H:%M:%S", time.gmtime(when)) + " UTC"


def reopen_breakers(s: Services) -> None:
    """At start: the breakers the record left open stay open until their time, then are probed."""
    newest = s.ledger.page(kind=RouteBreaker.KIND, limit=READ_BACK)
    for kept in remembered((e for e in newest if isinstance(e, RouteBreaker)), s.clock.now()):
        s.breakers.reopen(kept.target, kept.until, kept.window_s, kept.reason)
