"""Still too long after compaction: the rest of the turn goes to a model on the route with a larger window.

A context-length error first makes the conversation smaller (``context_step.fit``,
trigger ``overflow``: old results cleared, else summarized) and is retried
once. When that request is too long as well, the conversation is simply
bigger than this model can read, and another model with a larger window
(the catalog's, ``context/window.py``) can answer where this one cannot: the
first such candidate of the agent's planned route (so the vendor opt-in and
the price ceiling hold as for any fallback) answers the rest of the turn,
its requests recorded with the route reason. Each step must find a strictly
larger window than every one found too small this turn, so it ends. Never
for any other ``bad_request``: a malformed request is refused everywhere.
"""

from __future__ import annotations

from ..context.window import window_tokens
from ..routes.route import Widened, plan
from ..routes.target import Target
from .process import AgentProcess


def widen(agent: AgentProcess) -> bool:
    """Move the rest of the turn to the route's first model whose window is larger than any found too small;
    True when there is one (the next request goes there)."""
    failed, route = agent.tried, agent.route
    if failed is None or route is None:
        return False
    settings = agent.services.settings
    previous = agent.widened.past if agent.widened is not None else 0
    past = max(previous, window_tokens(failed.provider, failed.model, settings))
    for target in plan(route, settings.prices).candidates:
        if window_tokens(target.provider, target.model, settings) > past:
            agent.sticky = target
            agent.widened = Widened(past, f"larger window: the conversation was too long for {failed} "
                                          f"({past:,} tokens) even after compaction")
            return True
    return False


def wide_enough(agent: AgentProcess, candidates: tuple[Target, ...]) -> tuple[Target, ...]:
    """The candidates that can still read this turn's conversation (all of them until it outgrew a window)."""
    widened = agent.widened
    if widened is None:
        return candidates
    settings = agent.services.settings
    return tuple(t for t in candidates if window_tokens(t.provider, t.model, settings) > widened.past)
