"""Agents rebuilt from the record: what a kernel starting on an existing ledger brings back.

One pass over the entries that matter, oldest first, folds each agent's
conversation exactly as the loop built it (user turns, ``ok`` replies, tool
outcomes matched to their calls by the model's call id, appended through
the same ``appended`` merge), its usage, its budget, and whether it was
killed or archived. A reply whose calls have no outcome was interrupted
mid-turn: each such call gets an ``error`` "interrupted: the kernel
stopped" (``dangling``, appended by the caller), so the conversation stays
well formed and nothing that may have run is ever run again.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ledger import (
    AgentArchive, AgentBudget, AgentKill, AgentSpawn, Compaction, Entry, Expired, LeaseGrant, LeaseRevoke, Ledger, ModelRequest,
    SystemPrompt, ToolCall, ToolError, ToolResult, UserTurn,
)

from ..accounting.budget import Usage
from ..context.clearing import cleared
from ..context.compaction import after_cut, states_after_cut
from ..context.layout import Placed, place
from ..leases.lease import Lease
from ..core.messages import Message, Part, TextPart, ToolResultPart, ToolUse, appended, images_of, user_text
from ..core.json_safe import clean_text
from ..trust.untrusted import capped

INTERRUPTED = "interrupted: the kernel stopped"
KERNEL_STOPPED = "the kernel stopped"  # why a working agent is interrupted by a clean shutdown
CONVERSATION_KINDS = tuple(cls.KIND for cls in (UserTurn, ModelRequest, ToolCall, ToolResult, ToolError, SystemPrompt,
                                                Compaction))
ADMIN_KINDS = tuple(cls.KIND for cls in (AgentSpawn, AgentKill, AgentArchive, AgentBudget, LeaseGrant, LeaseRevoke,
                                         Expired))
KINDS = ADMIN_KINDS + CONVERSATION_KINDS


@dataclass
class AgentRecord:
    """One agent as its entries tell it."""

    spawn: AgentSpawn
    budget: int
    conversation: tuple[Message, ...] = ()
    usage: Usage = Usage()
    served: dict[Served, Usage] = field(default_factory=dict)  # usage per (sent to, served by): for its price
    first_prompt: str = ""
    last_ts: float = 0.0
    killed: bool = False
    archived: bool = False
    failure: str | None = None          # the last request failed (and nothing came after it)
    pending: list[Mapping[str, Any]] = field(default_factory=list)  # the last reply's calls
    outcomes: dict[str, ToolResultPart] = field(default_factory=dict)
    started: dict[str, int] = field(default_factory=dict)           # call id → its tool entry's seq
    dangling: list[ToolError] = field(default_factory=list)
    prompt: SystemPrompt | None = None  # the system prompt and tools it was last sent
    states: list[Placed] = field(default_factory=list)  # the state blocks it was sent (context.layout)
    result_seqs: list[int] = field(default_factory=list)  # the entry of each tool result, in conversation order
    outcome_seqs: dict[str, int] = field(default_factory=dict)
    last_input: int = 0  # the input tokens of its last ok request (0 after a compaction): how full the context is

    @property
    def id(self) -> str:
        return self.spawn.actor

    @property
    def needs_reply(self) -> bool:
        return bool(self.conversation) and self.conversation[-1].role == "user"

    def settle(self) -> None:
        """Append the outcomes of the last reply's calls; a call without one gets the interruption."""
        if not self.pending:
            return
        parts = []
        for call in self.pending:
            cid, name = _text(call.get("id")), _text(call.get("name"))
            part = self.outcomes.get(cid)
            if part is None:
                part = ToolResultPart(cid, name, INTERRUPTED, is_error=True)
                self.dangling.append(ToolError(actor=self.id, cause=self.started.get(cid), tool=name,
                                               message=INTERRUPTED, call=cid))
            parts.append(part)
            self.result_seqs.append(self.outcome_seqs.get(cid, 0))
        self.conversation = appended(self.conversation, Message("user", tuple(parts)))
        self.pending, self.outcomes, self.started, self.outcome_seqs = [], {}, {}, {}


@dataclass
class Restored:
    agents: dict[str, AgentRecord]
    leases: list[Lease]


def fold(entries: Iterable[Entry], now: float) -> Restored:
    """Every agent on the record, and the leases still live at ``now``."""
    agents: dict[str, AgentRecord] = {}
    leases: dict[int, Lease] = {}
    for e in entries:
        match e:
            case AgentSpawn() if all(isinstance(v, str) for v in (e.name, e.provider, e.model, e.workspace)):
                agents[e.actor] = AgentRecord(e, _count(e.budget) or 1, last_ts=e.ts)
            case LeaseGrant():
                if isinstance(e.until, (int, float)) and isinstance(e.scope, str) and e.until > now:
                    leases[e.seq] = Lease(e.seq, e.subject, e.scope, e.until)
            case LeaseRevoke():
                leases.pop(e.lease, None)
            case Expired():
                if e.lease is not None:
                    leases.pop(e.lease, None)
            case AgentKill() | AgentArchive() | AgentBudget():
                rec = agents.get(e.subject)
                if rec is not None:
                    _administer(rec, e)
            case _:
                rec = agents.get(e.actor)
                if rec is not None:
                    converse(rec, e)
    for rec in agents.values():
        rec.settle()
    return Restored(agents, [l for l in leases.values() if l.subject in agents and not agents[l.subject].killed])


def summarise(ledger: Ledger, now: float, *, tails: bool = True) -> Restored:
    """Every agent on the record without reading whole conversations (a kernel's start).

    Spawns, kills, archives, budgets and leases are few and read whole; usage,
    first prompts and last activity come from SQLite aggregates; only each
    agent's tail (from its last request on) is folded, which is all it takes
    to know its state and the calls left without an outcome. A request is only
    ever made when the conversation ends with a user message, so the tail
    starts from one. ``conversation`` is then partial: ``conversation_of``
    reads the whole of it when someone needs it.
    """
    restored = fold(ledger.scan(ADMIN_KINDS), now)
    requests = ledger.per_actor(ModelRequest.KIND,
                                ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"))
    replies = ledger.per_actor(ModelRequest.KIND, unless=("route", UTILITY))  # where each tail starts
    by_model = ledger.per_actor_groups(ModelRequest.KIND, PRICED_BY,
                                       ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"))
    messages = ledger.per_actor(UserTurn.KIND)
    prompts = ledger.per_actor(SystemPrompt.KIND)
    for rec in restored.agents.values():
        req, msg, reply = requests.get(rec.id), messages.get(rec.id), replies.get(rec.id)
        if tails and not (rec.killed or rec.archived):
            rec.conversation = (user_text(""),)
            for e in ledger.of_actor(rec.id, CONVERSATION_KINDS, after=reply[1] - 1 if reply else rec.spawn.seq):
                converse(rec, e)
            rec.settle()
            if req is None and msg is None:
                rec.conversation = ()
        rec.usage = Usage(*(_whole(n) for n in req[3][:4])) if req else Usage()
        rec.served = {}
        for (provider, model, served_provider, served_model), sums in by_model.get(rec.id, ()):
            key = _served(provider, model, served_provider, served_model)
            rec.served[key] = rec.served.get(key, Usage()) + Usage(*(_whole(n) for n in sums[:4]))
        rec.last_ts = max(rec.last_ts, req[2] if req else 0.0, msg[2] if msg else 0.0)
        first = ledger.get(msg[0]) if msg else None
        rec.first_prompt = _text(first.text) if isinstance(first, UserTurn) else ""
        last_prompt = prompts.get(rec.id)
        if rec.prompt is None and last_prompt is not None and not (rec.killed or rec.archived):
            found = ledger.get(last_prompt[1])
            rec.prompt = found if isinstance(found, SystemPrompt) else None
    return restored


def conversation_of(ledger: Ledger, spawn: AgentSpawn, upto: int | None = None) -> tuple[Message, ...]:
    """An agent's whole conversation, read from the record (as it stood at seq ``upto``)."""
    return record_of(ledger, spawn, upto).conversation


def record_of(ledger: Ledger, spawn: AgentSpawn, upto: int | None = None) -> AgentRecord:
    """An agent's conversation and what it was sent beside it (prompt, state blocks), from the record."""
    rec = AgentRecord(spawn, spawn.budget)
    bound = {} if upto is None else {"upto": upto}
    for e in ledger.of_actor(spawn.actor, CONVERSATION_KINDS, after=spawn.seq, **bound):
        converse(rec, e)
    rec.settle()
    return rec


def _administer(rec: AgentRecord, e: Entry) -> None:
    match e:
        case AgentKill():
            rec.killed = True
        case AgentArchive(archived=archived):
            rec.archived = archived
        case AgentBudget(budget=budget):
            rec.budget = _count(budget) or rec.budget
    rec.last_ts = max(rec.last_ts, e.ts)


def _bill(rec: AgentRecord, e: ModelRequest) -> None:
    """A request's tokens, counted for the agent and for the model that served them (the price table's)."""
    used = Usage(_count(e.input_tokens), _count(e.output_tokens), _count(e.cache_read_tokens),
                 _count(e.cache_write_tokens))
    rec.usage = rec.usage + used
    key = _served(e.provider, e.model, e.served_provider, e.served_model)
    rec.served[key] = rec.served.get(key, Usage()) + used


def converse(rec: AgentRecord, e: Entry) -> None:
    """One conversation entry folded in. The record is read as hostile input: a field of the wrong
    type (a hand-edited file) reads as empty, never as a crash at start."""
    rec.last_ts = max(rec.last_ts, e.ts)
    match e:
        case UserTurn():
            rec.settle()
            rec.failure = None
            rec.conversation = appended(rec.conversation, _user_turn(e))
            rec.first_prompt = rec.first_prompt or _text(e.text)
        case SystemPrompt():
            rec.prompt = e
        case ModelRequest() if e.route == UTILITY or e.reason == "compaction":
            _bill(rec, e)  # housekeeping (a utility request, a compaction's summary): billed, never the conversation
        case Compaction(mode="summary", cut=cut, context=context) if isinstance(cut, int) and isinstance(context, str):
            rec.settle()
            if 0 < cut < len(rec.conversation):
                rec.conversation = after_cut(rec.conversation, cut, context)
                rec.states = states_after_cut(rec.states, cut)
            rec.last_input = 0
        case ModelRequest():
            rec.settle()
            if isinstance(e.state, str) and e.state:  # the state block it appended to the newest turn
                placed = place(rec.conversation, e.state)
                if placed is not None:
                    rec.states.append(placed)
            _bill(rec, e)
            rec.failure = (_text(e.error) or "the request failed") if e.status == "error" else None
            if e.status == "ok":
                rec.last_input = _count(e.input_tokens)
                calls = e.tool_calls if isinstance(e.tool_calls, tuple) else ()
                rec.pending = [c for c in calls if isinstance(c, Mapping)]
                rec.conversation = appended(rec.conversation, _reply(_text(e.text), rec.pending))
        case ToolCall(call=cid) if isinstance(cid, str):
            rec.started[cid] = e.seq
        case ToolResult(call=cid) if isinstance(cid, str) and _expected(rec, cid):
            content = e.content if isinstance(e.content, str) else _as_text(e.output)
            rec.outcomes[cid] = ToolResultPart(cid, _name(rec, cid), content, images=images_of(e.images))
            rec.outcome_seqs[cid] = e.seq
        case ToolError(call=cid) if isinstance(cid, str) and _expected(rec, cid):
            rec.outcomes[cid] = ToolResultPart(cid, _name(rec, cid), _text(e.message), is_error=True)
            rec.outcome_seqs[cid] = e.seq
        case Compaction(mode="clear", last=last) if isinstance(last, int):
            rec.settle()
            rec.conversation, _ = cleared(rec.conversation, rec.result_seqs, last)
            rec.last_input = 0


def _user_turn(e: UserTurn) -> Message:
    """A user turn as the model saw it: its text, then the pictures sent with it."""
    text = _text(e.text)
    parts: tuple[Part, ...] = (TextPart(text),) if text or not e.images else ()
    return Message("user", parts + images_of(e.images))


PRICED_BY = ("provider", "model", "served_provider", "served_model")
UTILITY = "utility"  # a request entry's ``route`` for housekeeping (agents/utility.py)


Served = tuple[str, str, str | None, str | None]


def _served(provider: Any, model: Any, served_provider: Any, served_model: Any) -> Served:
    """Where a request went and who answered it (the price table chooses later: ``accounting.mixed``)."""
    return (_text(provider), _text(model), served_provider if isinstance(served_provider, str) else None,
            served_model if isinstance(served_model, str) else None)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _whole(total: float) -> int:
    """A sum SQLite made of the record's token counts, as a count (garbage in it reads as 0)."""
    return int(total) if math.isfinite(total) and total > 0 else 0


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _reply(text: str, calls: list[Mapping[str, Any]]) -> Message:
    parts: list[TextPart | ToolUse] = [TextPart(text)] if text else []
    for call in calls:
        tool_input = call.get("input")
        meta = call.get("meta")
        parts.append(ToolUse(_text(call.get("id")), _text(call.get("name")),
                             tool_input if isinstance(tool_input, Mapping) else {},
                             meta if isinstance(meta, Mapping) else {}))
    return Message("assistant", tuple(parts))


def _expected(rec: AgentRecord, cid: str) -> bool:
    return any(c.get("id") == cid for c in rec.pending)


def _name(rec: AgentRecord, cid: str) -> str:
    return next((_text(c.get("name")) for c in rec.pending if c.get("id") == cid), "")


def _as_text(output: Any) -> str:
    """A result recorded before results kept what the model read: its data, as JSON text."""
    return capped(clean_text(output if isinstance(output, str) else json.dumps(output, default=str)))
