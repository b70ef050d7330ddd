"""The pairing gate: the one decision between a parsed message and any side effect.

``judge`` is pure over the pairing book and the loop guard: it returns what
to do (``Admit``, ``Reply`` with a pairing code, or ``Drop`` with why) and
does nothing itself, so the hub cannot type, download, spawn or call a model
for a message the gate did not admit: those steps take an ``Admit``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .loop_guard import LoopGuard
from .model import Inbound
from .pairing import AlreadyPending, Full, NewCode, PairingBook

START_COMMANDS = ("/start",)


@dataclass(frozen=True)
class Admit:
    inbound: Inbound


@dataclass(frozen=True)
class Reply:
    """Send ``text`` (a pairing code) to the chat, and nothing else."""

    inbound: Inbound
    text: str


@dataclass(frozen=True)
class Drop:
    inbound: Inbound
    why: str


Verdict = Admit | Reply | Drop


def pairing_text(code: str, ttl_s: float) -> str:
    hours = ttl_s / 3600
    span = f"{hours:g} hour" + ("" if hours == 1 else "s") if ttl_s >= 3600 else f"{ttl_s / 60:g} minutes"
    return (f"This agent does not know you yet. Pairing code: {code}\n"
            f"Ask its owner to approve it (agentdesk channel approve {code}); it expires in {span}.")


def judge(inbound: Inbound, book: PairingBook, guard: LoopGuard, ttl_s: float, own_ids: frozenset[str],
          open_to_anyone: bool = False) -> Verdict:
    """Admit a paired sender's message (anyone's on a channel whose access is "open"); give an unknown one a
    code at most once; drop everything else. Our own messages, malformed ones and a looping bot are dropped
    on an open channel too."""
    if inbound.sender in own_ids:
        return Drop(inbound, "our own message")
    if not inbound.sender or not inbound.chat or not inbound.message_id:
        return Drop(inbound, "no sender, chat or message id")
    if inbound.sender_is_bot and not guard.allow(inbound.channel, inbound.sender):
        return Drop(inbound, "bot loop guard: too many messages from this bot this minute")
    if book.paired(inbound.subject) or open_to_anyone:
        return Admit(inbound)
    asked = book.ask(inbound, ttl_s)
    if isinstance(asked, NewCode):
        return Reply(inbound, pairing_text(asked.pending.code, ttl_s))
    if isinstance(asked, AlreadyPending):
        return Drop(inbound, "a pairing code was already sent to this sender")
    assert isinstance(asked, Full)
    return Drop(inbound, "three pairing codes are pending on this channel")
