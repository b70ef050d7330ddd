"""Outward calls happen at most once, visibly: an intent before acting, an outcome after.

A sent mail or a created event cannot be undone, and a retry (the model
repeating a call, a cut connection, a restart) must not do it twice. So
before acting the kernel records an ``intent`` with an idempotency key made
of the agent, the tool, the canonical arguments and the model's call id; the
key also names the effect (the mail's Message-ID, the event's UID), so a
check can find it. After acting it records an ``outcome`` (``done`` ·
``failed`` · ``unknown``). A second identical call in the same turn, or the
same call replayed, returns the first outcome instead of acting again. An
intent with no outcome (the kernel died in between) is verified by looking
for the effect: found → ``done``; not found → ``unknown``, never retried
automatically, listed by ``unknown_intents`` for the Inbox.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Mapping

from ledger import KERNEL, USER, Intent, Ledger, LedgerError, Outcome, ToolCall

from ..core.errors import KernelError, ToolFailure
from .descriptor import ToolContext

DONE, FAILED, UNKNOWN = "done", "failed", "unknown"
Verifier = Callable[[Intent], Awaitable[bool]]  # True: the effect exists; raises when it cannot tell


class NotDone(ToolFailure):
    """The outward call surely did not happen (refused before anything left): recorded as ``failed``."""


class Uncertain(ToolFailure):
    """The outward call may have happened (the connection broke mid-way): verify before anything else."""


def canonical(args: Mapping[str, Any]) -> str:
    return json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def idempotency_key(agent_id: str, tool: str, args: Mapping[str, Any], call_id: str) -> str:
    """sha256 over (agent, tool, canonical arguments, the model's call id), hex."""
    return hashlib.sha256(json.dumps([agent_id, tool, canonical(args), call_id]).encode()).hexdigest()


@dataclass(frozen=True)
class UnknownIntent:
    """An outward call that may or may not have happened: for the user to check (the Inbox). ``shown`` is
    the message or event as the call asked for it (what may have gone out); ``ts`` when it was attempted."""

    intent_seq: int
    actor: str
    tool: str
    target: str
    detail: str
    ts: float = 0.0
    shown: str = ""


class OutwardBook:
    """Keys, intents and outcomes for one kernel's outward calls."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._turn_keys: dict[tuple[str, int, str, str], str] = {}
        self._keys: dict[str, int] | None = None  # idempotency key → intent seq, read on first use

    def key_for(self, ctx: ToolContext, tool: str, args: Mapping[str, Any]) -> str:
        """This call's key; an identical call earlier in the same turn gives that call's key."""
        turn = (ctx.agent_id, ctx.turn, tool, canonical(args))
        if turn not in self._turn_keys:
            self._turn_keys[turn] = idempotency_key(ctx.agent_id, tool, args, ctx.call_id)
        return self._turn_keys[turn]

    def earlier(self, agent_id: str, turn: int, tool: str, args: Mapping[str, Any]) -> Outcome | None:
        """The recorded outcome of an identical call earlier in this agent's turn, or None (no such call,
        or it has no outcome yet): checked before the confirmation, so the user is not asked twice."""
        key = self._turn_keys.get((agent_id, turn, tool, canonical(args)))
        intent = None if key is None else self.intent(key)
        return None if intent is None else self.outcome(intent)

    def intent(self, key: str) -> Intent | None:
        """The intent recorded under ``key``. The keys are read from the ledger once per book (one scan;
        scanning per call cost 135 ms at 1,000 past intents, 2026-12-01), then kept as intents are added.
        A key names its agent, and an agent lives in one kernel, so no other process adds to its keys."""
        if self._keys is None:
            self._keys = {}
            for at, value in self.ledger.body_values(Intent.KIND, "key"):
                if isinstance(value, str):
                    self._keys.setdefault(value, at)
        found = self._keys.get(key)
        if found is None:
            return None
        entry = self.ledger.get(found)
        return entry if isinstance(entry, Intent) else None

    def outcome(self, intent: Intent) -> Outcome | None:
        for entry in self.ledger.caused_by(intent.seq):
            if isinstance(entry, Outcome):
                return entry
        return None

    def begin(self, ctx: ToolContext, tool: str, key: str, target: str) -> Intent:
        entry = self.ledger.append(Intent(actor=ctx.agent_id, tool=tool, key=key, call_id=ctx.call_id,
                                          target=target, cause=ctx.cause))
        assert isinstance(entry, Intent)
        if self._keys is not None:
            self._keys[key] = entry.seq
        return entry

    def finish(self, intent: Intent, status: str, detail: str = "", data: Mapping[str, Any] | None = None) -> Outcome:
        entry = self.ledger.append(Outcome(actor=intent.actor if status != UNKNOWN else KERNEL, status=status,
                                           detail=detail, data=dict(data or {}), cause=intent.seq))
        assert isinstance(entry, Outcome)
        return entry

    async def once(self, ctx: ToolContext, tool: str, args: Mapping[str, Any], target_of: Callable[[str], str],
                   act: Callable[[str], Awaitable[Mapping[str, Any]]], verify: Verifier) -> tuple[Outcome, bool]:
        """Act at most once for this call: replay a recorded outcome, verify an open intent, or record an
        intent, act, and record the outcome. The outcome, and whether it was replayed (no new act).
        ``act(key)`` raises NotDone when surely nothing happened; any other failure is verified."""
        key = self.key_for(ctx, tool, args)
        intent = self.intent(key)
        if intent is not None:
            return (self.outcome(intent) or await self.settle(intent, verify)), True
        intent = self.begin(ctx, tool, key, target_of(key))
        try:
            data = await act(key)
        except NotDone as exc:
            return self.finish(intent, FAILED, exc.message), False
        except ToolFailure as exc:
            return await self.settle(intent, verify, exc.message), False
        except Exception as exc:  # noqa: BLE001 - whatever broke, it may have happened: verify, never assume
            return await self.settle(intent, verify, f"{type(exc).__name__}: {exc}"[:300]), False
        return self.finish(intent, DONE, data=data), False

    async def settle(self, intent: Intent, verify: Verifier, why: str = "") -> Outcome:
        """An intent with no outcome: look for its effect; found → done, else (or no way to tell) unknown."""
        try:
            found = await verify(intent)
        except ToolFailure as exc:
            return self.finish(intent, UNKNOWN, _joined(why, f"could not check: {exc.message}"))
        if found:
            return self.finish(intent, DONE, "found on the server after an interruption", {"verified": True})
        return self.finish(intent, UNKNOWN, _joined(why, "not found on the server; it was not retried"))

    async def recheck(self, intent: Intent, verify: Verifier) -> Outcome | None:
        """Look again for an unknown call's effect (the user asked): found → recorded as ``done``; not
        found → None (still unknown, nothing recorded, never retried). ToolFailure when it cannot tell."""
        if not await verify(intent):
            return None
        return self.finish(intent, DONE, "found on the server when checked again", {"verified": True})

    def open_intents(self) -> list[Intent]:
        """Intents with no outcome yet, oldest first (after a crash)."""
        out: list[Intent] = []
        before = None
        while True:
            page = self.ledger.page(kind=Intent.KIND, before=before, limit=500)
            out.extend(e for e in page if isinstance(e, Intent) and self.outcome(e) is None)
            if len(page) < 500:
                return sorted(out, key=lambda e: e.seq)
            before = page[-1].seq

    async def resume(self, verifiers: Mapping[str, Verifier]) -> list[Outcome]:
        """Verify every open intent whose tool has a verifier (called once when the kernel starts)."""
        settled = []
        for intent in self.open_intents():
            verify = verifiers.get(intent.tool)
            if verify is not None:
                settled.append(await self.settle(intent, verify, "the kernel stopped before recording how it ended"))
        return settled


# What an interrupted outward call did, in the words its result gives the model after a restart (issue 23:
# told only "interrupted", a real model sent the mail again although the record said it had gone out).
_EFFECT = {"mail_send": ("the mail", "sent"), "calendar_create": ("the event", "created")}


def interrupted_words(ledger: Ledger, call_seq: int | None) -> str | None:
    """The result of an outward call the kernel stopped in the middle of, saying its recorded outcome:
    done (it went out: never again), failed (it did not), unknown (it waits in the user's Inbox), or none
    recorded yet. None when the call ``call_seq`` began no outward intent."""
    if call_seq is None:
        return None
    intent = next((e for e in ledger.caused_by(call_seq) if isinstance(e, Intent)), None)
    if intent is None:
        return None
    what, done = _EFFECT.get(intent.tool, ("the call's effect", "done"))
    named = f" ({_TARGET.get(intent.tool, 'key')} {intent.target})" if intent.target else ""
    stopped = "interrupted: the kernel stopped during this call, before its result was recorded"
    outcome = settled(ledger, intent) or next((e for e in ledger.caused_by(intent.seq) if isinstance(e, Outcome)),
                                              None)
    if outcome is None:
        return (f"{stopped}. Whether {what} was {done} was not recorded; it was not retried. Do not repeat "
                f"this call: ask the user whether {what} went out{named}.")
    detail = f" ({outcome.detail})" if outcome.detail else ""
    if outcome.status == DONE:
        return f"{stopped}, but the record says {what} was {done}{named}{detail}. It is done: do not repeat it."
    if outcome.status == FAILED:
        return (f"{stopped}. The record says {what} was not {done}{detail}; it was not retried. Call again only "
                "if it is still wanted.")
    return (f"{stopped}. Whether {what} was {done} is unknown{detail}: it waits in the user's Inbox to be "
            f"checked{named}, and it was not retried. Do not repeat it unless the user says it did not go out.")


Describer = Callable[[str, Mapping[str, Any], str], "str | None"]  # (tool, arguments, target) → the effect in words


def unknown_intents(ledger: Ledger, describe: Describer | None = None) -> list[UnknownIntent]:
    """Every outward call whose outcome is ``unknown`` and that nobody has settled since (the user saying
    it was or was not sent, or a later check finding it), newest first: what the Inbox shows. ``describe``
    (the mail service's) shows the message or event exactly; else the call's arguments are listed."""
    out: list[UnknownIntent] = []
    seen: set[int] = set()
    for entry in ledger.page(kind=Outcome.KIND, limit=10_000):
        if not (isinstance(entry, Outcome) and entry.status == UNKNOWN and entry.cause is not None):
            continue
        if entry.cause in seen:
            continue
        seen.add(entry.cause)
        intent = ledger.get(entry.cause)
        if isinstance(intent, Intent) and settled(ledger, intent) is None:
            args = call_input(ledger, intent)
            shown = (describe(intent.tool, args, intent.target) if describe is not None else None) \
                or described(intent.tool, args, intent.target)
            out.append(UnknownIntent(intent.seq, intent.actor, intent.tool, intent.target, entry.detail, intent.ts,
                                     shown))
    return out


def call_input(ledger: Ledger, intent: Intent) -> Mapping[str, Any]:
    """The arguments of the call an intent came from, as recorded ({} when there is no such call)."""
    try:
        call = ledger.get(intent.cause) if intent.cause else None
    except LedgerError:
        return {}
    return call.input if isinstance(call, ToolCall) else {}


def settled(ledger: Ledger, intent: Intent) -> Outcome | None:
    """The outcome that settled an intent (``done`` or ``failed``, whoever recorded it), or None."""
    for entry in ledger.caused_by(intent.seq):
        if isinstance(entry, Outcome) and entry.status != UNKNOWN:
            return entry
    return None


def open_unknown(ledger: Ledger, intent_seq: int) -> Intent:
    """The intent ``intent_seq`` when its outcome is unknown and unsettled (KernelError otherwise)."""
    intent = ledger.get(intent_seq)
    if not isinstance(intent, Intent):
        raise KernelError(f"#{intent_seq} is not an outward call")
    outcomes = [e for e in ledger.caused_by(intent.seq) if isinstance(e, Outcome)]
    if not any(o.status == UNKNOWN for o in outcomes) or settled(ledger, intent) is not None:
        raise KernelError(f"outward call #{intent_seq} is not waiting for a check")
    return intent


def user_says(ledger: Ledger, intent_seq: int, sent: bool) -> Outcome:
    """Record the user's word on an unknown outward call: it went out (``done``) or not (``failed``).
    Nothing is retried either way."""
    intent = open_unknown(ledger, intent_seq)
    entry = ledger.append(Outcome(actor=USER, status=DONE if sent else FAILED, cause=intent.seq,
                                  detail="the user says it was sent" if sent else
                                  "the user says it was not sent; it was not retried"))
    assert isinstance(entry, Outcome)
    return entry


# The arguments shown first, in this order, for the tools the kernel knows; anything else follows, sorted.
_SHOWN_FIRST = {"mail_send": ("account", "to", "cc", "subject", "in_reply_to"),
                "calendar_create": ("account", "title", "start", "end", "timezone", "location", "attendees",
                                    "calendar")}
_LONG = ("body", "description")
_TARGET = {"mail_send": "Message-ID", "calendar_create": "UID"}


def described(tool: str, args: Mapping[str, Any], target: str) -> str:
    """The call as the user can check it: the arguments as asked (a mail's headers, then its body)."""
    first = _SHOWN_FIRST.get(tool, ())
    names = [n for n in first if n in args] + sorted(n for n in args if n not in first and n not in _LONG)
    lines = [f"{n.replace('_', ' ').capitalize()}: {_words(args[n])}" for n in names]
    if target:
        lines.append(f"{_TARGET.get(tool, 'Key')}: {target}")
    for name in _LONG:
        if args.get(name):
            lines += ["", str(args[name])]
    return "\n".join(lines)


def _words(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _joined(*parts: str) -> str:
    return "; ".join(p for p in parts if p)
