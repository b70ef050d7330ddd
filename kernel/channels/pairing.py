"""The pairing book: who is paired, which codes are pending, and the rules a code obeys.

Pairings are ledger entries (``pairing.request``, ``pairing.grant``,
``pairing.revoke``); the book is rebuilt from them at start and appends them
as it decides, so a restart neither forgets an approval nor revives a
revoked one. Pending codes: at most ``MAX_PENDING`` per channel, each for one
``Subject`` (exactly one sender in one chat of one kind), each answered at
most once; an expired code is gone. The book holds the first message of a
pending sender (in memory, never on the record) so approval can answer it.
There is no wildcard: a grant names one subject, and ``paired`` compares
every field exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ledger import PairingGrant, PairingRequest, PairingRevoke, USER

from .codes import new_code, normalize, well_formed
from .model import ChannelError, Inbound, Subject

if TYPE_CHECKING:
    from ledger import Entry, Ledger

MAX_PENDING = 3


@dataclass(frozen=True)
class Pending:
    code: str
    subject: Subject
    expires: float
    sender_name: str
    first: Inbound | None        # the message that asked (answered once approved); None after a restart


@dataclass(frozen=True)
class NewCode:
    """The gate gave this sender a code: reply with it once."""

    pending: Pending


@dataclass(frozen=True)
class AlreadyPending:
    """This sender already has a live code: say nothing again."""


@dataclass(frozen=True)
class Full:
    """Three codes are pending on this channel: the sender gets nothing until one expires or is approved."""


Asked = NewCode | AlreadyPending | Full


class PairingBook:
    def __init__(self, ledger: Ledger, now: Callable[[], float]) -> None:
        self._ledger = ledger
        self._now = now
        self._paired: set[Subject] = set()
        self._pending: dict[str, Pending] = {}  # code → pending
        self._denied: dict[Subject, float] = {}  # refused by the owner: silent until their code would expire
        for entry in ledger.scan((PairingRequest.KIND, PairingGrant.KIND, PairingRevoke.KIND)):
            self._fold(entry)
        self._expire()

    def _fold(self, entry: Entry) -> None:
        """One pairing entry of the record, in order: codes still live come back pending (without the
        message that asked), grants pair, revocations unpair."""
        subject = Subject(getattr(entry, "channel"), getattr(entry, "chat_kind"), getattr(entry, "chat"),
                          getattr(entry, "sender"))
        if isinstance(entry, PairingRequest):
            self._pending[entry.code] = Pending(entry.code, subject, entry.expires, entry.sender_name, None)
        elif isinstance(entry, PairingGrant):
            self._pending.pop(entry.code, None)
            self._paired.add(subject)
        elif isinstance(entry, PairingRevoke):
            self._paired.discard(subject)
            for code, p in [(c, p) for c, p in self._pending.items() if p.subject == subject]:
                del self._pending[code]  # a denied code
                self._denied[subject] = p.expires

    def paired(self, subject: Subject) -> bool:
        return subject in self._paired

    def subjects(self) -> list[Subject]:
        return sorted(self._paired, key=lambda s: (s.channel, s.chat_kind, s.chat, s.sender))

    def pending(self, channel: str | None = None) -> list[Pending]:
        self._expire()
        return [p for p in self._pending.values() if channel is None or p.subject.channel == channel]

    def ask(self, inbound: Inbound, ttl_s: float) -> Asked:
        """An unknown sender wrote: a new code (recorded), or silence."""
        self._expire()
        subject = inbound.subject
        if any(p.subject == subject for p in self._pending.values()) or self._denied.get(subject, 0) > self._now():
            return AlreadyPending()
        if sum(1 for p in self._pending.values() if p.subject.channel == subject.channel) >= MAX_PENDING:
            return Full()
        code = new_code()
        while code in self._pending:
            code = new_code()
        pending = Pending(code, subject, self._now() + ttl_s, inbound.sender_name[:100], inbound)
        self._pending[code] = pending
        self._ledger.append(PairingRequest(actor=f"channel:{subject.channel}", channel=subject.channel,
                                           chat=subject.chat, chat_kind=subject.chat_kind, sender=subject.sender,
                                           code=code, expires=pending.expires, sender_name=pending.sender_name))
        return NewCode(pending)

    def approve(self, typed: str, by: str = USER) -> Pending:
        """Pair the subject of a live code (ChannelError when there is none)."""
        self._expire()
        code = normalize(typed)
        pending = self._pending.pop(code, None) if well_formed(code) else None
        if pending is None:
            raise ChannelError(f"no pending pairing code {typed.strip()!r} (it may have expired: "
                               "the sender gets a new one by writing again)")
        s = pending.subject
        self._ledger.append(PairingGrant(actor=by, channel=s.channel, chat=s.chat, chat_kind=s.chat_kind,
                                         sender=s.sender, code=code))
        self._paired.add(s)
        return pending

    def deny(self, typed: str, by: str = USER) -> Pending:
        """Refuse the subject of a live code (ChannelError when there is none): recorded as a revocation of
        what was asked; the sender gets no new code until this one would have expired."""
        self._expire()
        code = normalize(typed)
        pending = self._pending.pop(code, None) if well_formed(code) else None
        if pending is None:
            raise ChannelError(f"no pending pairing code {typed.strip()!r} (it may have expired)")
        s = pending.subject
        self._ledger.append(PairingRevoke(actor=by, channel=s.channel, chat=s.chat, chat_kind=s.chat_kind,
                                          sender=s.sender, reason=f"pairing code {code} denied by the user"))
        self._denied[s] = pending.expires
        return pending

    def revoke(self, subject: Subject, by: str = USER, reason: str = "revoked by the user") -> bool:
        """End a pairing; False when there was none."""
        if subject not in self._paired:
            return False
        self._ledger.append(PairingRevoke(actor=by, channel=subject.channel, chat=subject.chat,
                                          chat_kind=subject.chat_kind, sender=subject.sender, reason=reason))
        self._paired.discard(subject)
        return True

    def forget_channel(self, channel: str) -> None:
        """A channel was removed: its pending codes go (its pairings stay on record, revoked)."""
        for code in [c for c, p in self._pending.items() if p.subject.channel == channel]:
            del self._pending[code]
        for subject in [s for s in self._paired if s.channel == channel]:
            self.revoke(subject, reason="the channel was removed")

    def _expire(self) -> None:
        now = self._now()
        for code in [c for c, p in self._pending.items() if p.expires <= now]:
            del self._pending[code]
        for subject in [s for s, until in self._denied.items() if until <= now]:
            del self._denied[subject]
