"""Compaction on the record: a summary request, a frontier from the ledger, a ``compaction`` entry.

The summary is asked of a model through ``summarize`` alone (the agent's own
provider and model for now; a utility route for housekeeping calls can take
its place there). Its request is a ``request`` entry of its own (reason
``compaction``, never part of the conversation). The ``compaction`` entry
holds the range summarized, the tokens before and after, the trigger, the
focus the user gave, and the compacted context exactly as the model reads it:
it is written before the agent uses it, so the redactor has taken any secret
out of the summary first, and an agent rebuilt from the record gets the same
bytes. Nothing is deleted: the entries summarized stay in the ledger.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from ledger import (
    AgentSpawn, Compaction, Denied, FileChange, Intent, Outcome, ToolCall, ToolError, ToolResult,
    UserTurn,
)

from ..context.compaction import (
    SUMMARY_SYSTEM, SUMMARY_TOKENS, after_cut, compacted_context, cut_index, states_after_cut, summary_request_text,
    user_words,
)
from ..context.estimate import estimate, size_chars
from ..context.frontier import LiveLease, frontier
from ..core.messages import user_text
from ..trust.markers import wrap
from .context_size import limit_tokens, next_request_tokens
from .process import AgentProcess
from .utility import utility_call

COMPACTION = "compaction"  # the reason of a summary request's entry
USER_TURNS_READ = 500
FRONTIER_KINDS = tuple(c.KIND for c in (ToolCall, ToolResult, ToolError, Denied, FileChange, Intent, Outcome))


async def summarize(agent: AgentProcess, system: str, text: str) -> str:
    """One housekeeping request on the utility route (Settings' utility model, else the agent's own),
    recorded and billed to the agent; its text, or ProviderError."""
    reply = await utility_call(agent, COMPACTION, system, (user_text(text),),
                               max_tokens=min(SUMMARY_TOKENS, agent.services.settings.max_tokens))
    return reply.text.strip()


async def compact(agent: AgentProcess, trigger: str, focus: str = "", *, before: int = 0) -> bool:
    """Summarize the conversation before its last exchanges; True when it was (False: nothing to summarize)."""
    messages = agent.conversation
    cut = cut_index(messages)
    if cut == 0:
        return False
    s, ctx = agent.services, agent.context
    before = before or next_request_tokens(agent)
    if trigger != "manual" and estimate(size_chars("", (), messages[cut:]), 0, 0) >= limit_tokens(agent):
        return False  # the exchanges kept are over the threshold alone: a summary of the rest cannot help
    summary = await summarize(agent, SUMMARY_SYSTEM, summary_request_text(messages[:cut], focus))
    untrusted = agent.taint is not None
    if untrusted:  # a summary of untrusted content is untrusted: the model reads it inside the markers
        summary = wrap(summary, "summary of the earlier conversation", agent.nonce)
    first, last, count = _range(agent, messages[cut:])
    context = compacted_context(summary, _frontier(agent), user_words(_user_texts(agent)))
    entry = s.record(Compaction(actor=agent.id, mode="summary", trigger=trigger, first=first, last=last,
                                tokens_before=before, summary=summary, focus=focus, entries=count,
                                untrusted=untrusted, cut=cut, context=context,
                                tokens_after=int((len(context) + sum(len(str(m)) for m in messages[cut:])) / 3.5)))
    recorded = entry.context if isinstance(entry, Compaction) else context  # the redacted text, as the record has it
    agent.conversation = after_cut(messages, cut, recorded)
    ctx.states = states_after_cut(ctx.states, cut)
    ctx.composed, ctx.sizes, ctx.last_sent, ctx.reported_input, ctx.just_compacted = {}, {}, 0, 0, True
    ctx.restored_input = 0
    return True


def _range(agent: AgentProcess, kept: tuple[object, ...]) -> tuple[int, int, int]:
    """The first and last seq of the entries summarized, and how many there are (read from the indexes and
    one JSON field each: an agent compacted a hundred times holds a hundred compacted contexts on record)."""
    ledger = agent.services.ledger
    spawns = ledger.newest_values(agent.id, AgentSpawn.KIND, "name", limit=1)
    earlier = next((seq for seq, mode in ledger.newest_values(agent.id, Compaction.KIND, "mode") if mode == "summary"),
                   None)
    first = (earlier if earlier is not None else spawns[0][0] if spawns else 0) + 1
    kept_replies = sum(1 for m in kept if getattr(m, "role", "") == "assistant")
    found = ledger.nth_last_reply(agent.id, kept_replies, after=first - 1) if kept_replies else None
    last = found - 1 if found is not None else ledger.last_seq()
    return first, last, ledger.count_of_actor(agent.id, after=first - 1, upto=last)


def _frontier(agent: AgentProcess) -> str:
    s = agent.services
    last_turn = s.ledger.newest_values(agent.id, UserTurn.KIND, "text", limit=1)
    since = last_turn[0][0] if last_turn else 0
    entries = s.ledger.of_actor(agent.id, FRONTIER_KINDS, after=since)
    entries += [o for i in entries if isinstance(i, Intent) for o in s.ledger.caused_by(i.seq)
                if isinstance(o, Outcome) and o.actor != agent.id]  # done by the user or the kernel's check
    writes = [e.seq for e in entries if isinstance(e, FileChange)]
    undone = s.ledger.undone_by(writes) if writes else {}
    leases = [LiveLease(l.scope, f"{datetime.fromtimestamp(l.until, timezone.utc):%H:%M}")
              for l in s.leases.live(agent.id)]
    root = agent.root
    return frontier(entries, undone, leases, lambda p: root.relative(Path(p)))


def _user_texts(agent: AgentProcess) -> list[str]:
    """The user's messages, oldest first: the newest ``USER_TURNS_READ`` (the words shown are capped anyway),
    their texts alone read from the record."""
    newest = agent.services.ledger.newest_values(agent.id, UserTurn.KIND, "text", limit=USER_TURNS_READ)
    return [text for _, text in reversed(newest) if isinstance(text, str)]
