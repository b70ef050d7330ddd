"""How full an agent's context is: the model's window and the estimated size of its next request."""

from __future__ import annotations

from ..context.estimate import estimate, size_chars
from ..context.layout import with_states
from ..context.window import window_tokens as window_tokens_of
from .process import AgentProcess


def window_tokens(agent: AgentProcess) -> int:
    return window_tokens_of(agent.provider, agent.model, agent.services.settings)


def next_request_tokens(agent: AgentProcess) -> int:
    """The estimated size of the next request, in tokens (the state block it may add is a few dozen)."""
    ctx = agent.context
    if len(ctx.sizes) > 2 * len(agent.conversation) + 64:  # merged and replaced messages: start the memo afresh
        ctx.sizes = {}
    tools = ctx.recorded[1] if ctx.recorded is not None else ()
    chars = size_chars(ctx.system or "", tools, with_states(agent.conversation, ctx.states, ctx.composed), ctx.sizes)
    return estimate(chars, ctx.reported_input, ctx.reported_chars)


def limit_tokens(agent: AgentProcess) -> float:
    """The size at which the context is made smaller (Settings' ``compact_at`` share of the window)."""
    return agent.services.settings.compact_at * window_tokens(agent)


def over_threshold(agent: AgentProcess) -> bool:
    return next_request_tokens(agent) >= limit_tokens(agent)
