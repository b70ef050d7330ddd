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

from ledger import KERNEL, Intent, Ledger, Outcome

from .errors import ToolFailure
from .tools.descriptor import ToolContext

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
    """An outward call that may or may not have happened: for the user to check (the Inbox)."""

    intent_seq: int
    actor: str
    tool: str
    target: str
    detail: str


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


def unknown_intents(ledger: Ledger) -> list[UnknownIntent]:
    """Every outward call whose outcome is ``unknown``, newest first: what the Inbox shows."""
    out: list[UnknownIntent] = []
    for entry in ledger.page(kind=Outcome.KIND, limit=10_000):
        if isinstance(entry, Outcome) and entry.status == UNKNOWN and entry.cause is not None:
            intent = ledger.get(entry.cause)
            if isinstance(intent, Intent):
                out.append(UnknownIntent(intent.seq, intent.actor, intent.tool, intent.target, entry.detail))
    return out


def _joined(*parts: str) -> str:
    return "; ".join(p for p in parts if p)
