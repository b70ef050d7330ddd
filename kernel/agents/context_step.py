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

import asyncio

from ledger import Compaction

from ..context.clearing import boundary, cleared, result_seqs, results_before
from .compact_step import compact
from .context_size import next_request_tokens, over_threshold
from ..core.errors import ProviderError
from ..core.states import AgentState
from .process import AgentProcess

AUTO, MANUAL, OVERFLOW = "auto", "manual", "overflow"
FOCUS_MAX = 2_000  # characters of a /compact focus kept (recorded on the compaction entry, never a turn)
NOTHING = "nothing to summarize yet: the conversation is its last exchanges"


async def fit(agent: AgentProcess, trigger: str = AUTO, focus: str = "") -> bool:
    """Make the context smaller when it is due (``trigger`` auto: past the threshold; overflow: now;
    manual: summarize now). Old tool results are cleared first; the conversation is summarized only
    when that is not enough. True when something was done; never twice without a request between."""
    ctx = agent.context
    if ctx.just_compacted or (trigger == AUTO and not over_threshold(agent)):
        return False
    before = next_request_tokens(agent)
    if trigger != MANUAL and clear_old_results(agent, trigger):
        if trigger == OVERFLOW or not over_threshold(agent):
            return True
    ctx.just_compacted = False
    return await compact(agent, trigger, focus, before=before)


def clear_old_results(agent: AgentProcess, trigger: str) -> bool:
    """Clear the long results older than the last few exchanges, on the record. True when any were."""
    messages = agent.conversation
    end = boundary(messages)
    known = results_before(messages, end)
    if known == 0:
        return False
    s = agent.services
    spawn_seqs = result_seqs(messages, s.ledger.outcome_calls(agent.id))  # each result's entry, in order
    upto = max((q for q in spawn_seqs[:known]), default=0)
    before = next_request_tokens(agent)
    smaller, count = cleared(messages, spawn_seqs, upto)
    if count == 0:
        return False
    agent.conversation = smaller
    ctx = agent.context
    # the sizes of the messages kept as they were stay known (the memo checks identity, and next_request_tokens
    # starts it afresh when replaced messages pile up): measuring 5,720 messages again took ~20 ms of CPU
    ctx.reported_input = ctx.restored_input = 0  # the reported figure was for the uncleared conversation
    after = next_request_tokens(agent)
    s.record(Compaction(actor=agent.id, mode="clear", trigger=trigger, last=upto, tokens_before=before,
                        tokens_after=after, entries=count))
    ctx.just_compacted = True
    return True


async def run_compaction(agent: AgentProcess, focus: str, before: tuple[AgentState, str]) -> None:
    """A compaction the user asked for ("Compact now", /compact, agentdesk compact): the agent then
    returns to the state it was in, or says why nothing was done; a failed summary leaves it as it was."""
    try:
        done = await fit(agent, MANUAL, focus.strip())
    except asyncio.CancelledError:
        raise
    except ProviderError as exc:
        agent.set_state(before[0] if before[0] is not AgentState.RUNNING else AgentState.IDLE,
                        f"the summary failed, nothing changed ({exc})")
        return
    agent.set_state(before[0] if before[0] is not AgentState.RUNNING else AgentState.IDLE,
                    before[1] if done else NOTHING)
