"""How full an agent's context is: the model's window and the estimated size of its next request."""

from __future__ import annotations

from ..context.estimate import estimate, size_chars
from ..context.layout import with_states
from ..providers.catalog import CATALOG, window_of
from .process import AgentProcess


def window_tokens(agent: AgentProcess) -> int:
    s = agent.services
    info = CATALOG.get(agent.provider)
    local = bool(info is not None and info.key_optional_with_base_url and s.settings.base_urls.get(agent.provider))
    return window_of(agent.provider, agent.model, local=local, user_set=s.settings.context_window).context


def next_request_tokens(agent: AgentProcess) -> int:
    """The estimated size of the next request, in tokens (the state block it may add is a few dozen)."""
    ctx = agent.context
    tools = ctx.recorded[1] if ctx.recorded is not None else ()
    chars = size_chars(ctx.system or "", tools, with_states(agent.conversation, ctx.states, ctx.composed))
    return estimate(chars, ctx.reported_input, ctx.reported_chars)


def over_threshold(agent: AgentProcess) -> bool:
    return next_request_tokens(agent) >= agent.services.settings.compact_at * window_tokens(agent)
