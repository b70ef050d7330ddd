"""Keep the conversation inside the model's window: estimate, then clear old tool results (recorded).

Called before every request, inside tool loops too. When the estimate of the
next request (``context.estimate``) reaches Settings' ``compact_at`` share of
the model's window (``providers.catalog.window_of``), or at once when the
provider said the request was too long, the results older than the last few
exchanges are cleared in one chunk (``context.clearing``) and a ``compaction``
entry (mode ``clear``) says which, so the agent rebuilt from the record is
cleared the same way. Never twice in a row without a request between.
"""

from __future__ import annotations

from ledger import AgentSpawn, Compaction

from ..context.clearing import boundary, cleared, results_before
from ..context.estimate import estimate, size_chars
from ..context.layout import with_states
from ..providers.catalog import CATALOG, window_of
from .process import AgentProcess
from .rebuild import record_of

AUTO, MANUAL, OVERFLOW = "auto", "manual", "overflow"


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


def fit(agent: AgentProcess, trigger: str = AUTO) -> bool:
    """Make the context smaller when it is due (``trigger`` auto: past the threshold; overflow or manual:
    now). True when something was cleared."""
    ctx = agent.context
    if ctx.just_compacted or (trigger == AUTO and not over_threshold(agent)):
        return False
    return clear_old_results(agent, trigger)


def clear_old_results(agent: AgentProcess, trigger: str) -> bool:
    """Clear the long results older than the last few exchanges, on the record. True when any were."""
    messages = agent.conversation
    end = boundary(messages)
    known = results_before(messages, end)
    if known == 0:
        return False
    s = agent.services
    spawn_seqs = record_of(s.ledger, _spawn(agent)).result_seqs  # each result's entry, in conversation order
    upto = max((q for q in spawn_seqs[:known]), default=0)
    before = next_request_tokens(agent)
    smaller, count = cleared(messages, spawn_seqs, upto)
    if count == 0:
        return False
    agent.conversation = smaller
    ctx = agent.context
    ctx.reported_input = 0  # the reported figure was for the uncleared conversation: count afresh
    after = next_request_tokens(agent)
    s.record(Compaction(actor=agent.id, mode="clear", trigger=trigger, last=upto, tokens_before=before,
                        tokens_after=after, entries=count))
    ctx.just_compacted = True
    return True


def _spawn(agent: AgentProcess) -> AgentSpawn:
    found = next((e for e in agent.services.ledger.of_actor(agent.id, (AgentSpawn.KIND,)) if isinstance(e, AgentSpawn)),
                 None)
    if found is None:
        raise LookupError(f"no spawn entry for {agent.id}")
    return found
