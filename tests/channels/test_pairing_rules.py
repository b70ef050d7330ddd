"""The pairing book and the gate without a network: codes, limits, the DM/group separation as a property."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from kernel.channels.codes import ALPHABET, LENGTH, LOOK_ALIKES, new_code, normalize
from kernel.channels.gate import Admit, Drop, Reply, judge
from kernel.channels.loop_guard import LoopGuard
from kernel.channels.model import Inbound
from kernel.channels.pairing import PairingBook
from kernel.channels.replies import split
from kernel.core.clock import ManualClock
from ledger import Ledger, PairingGrant, PairingRequest

ids = st.text(alphabet="0123456789abc-", min_size=1, max_size=6)


def book_on(ledger: Ledger, clock: ManualClock) -> PairingBook:
    return PairingBook(ledger, clock.now)


def message(sender: str, chat: str, kind: str = "dm", n: int = 1, channel: str = "tg", bot: bool = False) -> Inbound:
    return Inbound(channel=channel, chat=chat, chat_kind=kind, sender=sender, message_id=str(n),  # type: ignore[arg-type]
                   text="hi", sender_is_bot=bot)


def test_codes_have_eight_characters_and_no_look_alikes():
    seen = {new_code() for _ in range(2000)}
    assert len(seen) == 2000
    assert all(len(c) == LENGTH and set(c) <= set(ALPHABET) for c in seen)
    assert not set(ALPHABET) & LOOK_ALIKES
    assert normalize(" ab-cd efgh ") == "ABCDEFGH"


@settings(max_examples=60, deadline=None)
@given(sender=ids, dm_chat=ids, group_chat=ids, other=ids)
def test_a_dm_pairing_never_authorizes_a_group_message(sender, dm_chat, group_chat, other):
    clock = ManualClock()
    with Ledger(":memory:", clock=clock.now) as ledger:
        book = book_on(ledger, clock)
        guard = LoopGuard(clock.now)
        first = judge(message(sender, dm_chat), book, guard, 3600, frozenset())
        assert isinstance(first, Reply)
        book.approve(book.pending()[0].code)
        assert isinstance(judge(message(sender, dm_chat, n=2), book, guard, 3600, frozenset()), Admit)
        for chat in {dm_chat, group_chat, other}:  # the same sender in any group, even one with the DM's id
            verdict = judge(message(sender, chat, "group", n=3), book, guard, 3600, frozenset())
            assert not isinstance(verdict, Admit)
        if other != sender:  # another sender in the same DM chat id is somebody else
            assert not isinstance(judge(message(other, dm_chat, n=4), book, guard, 3600, frozenset()), Admit)
        # the record rebuilds the same pairings, and still only the DM
        again = book_on(ledger, clock)
        assert again.paired(message(sender, dm_chat).subject)
        assert not again.paired(message(sender, dm_chat, "group").subject)


def test_one_reply_per_sender_per_code_three_pending_and_expiry():
    clock = ManualClock()
    with Ledger(":memory:", clock=clock.now) as ledger:
        book, guard = book_on(ledger, clock), LoopGuard(clock.now)
        verdicts = [judge(message(f"s{i % 5}", f"s{i % 5}", n=i), book, guard, 3600, frozenset()) for i in range(50)]
        assert sum(isinstance(v, Reply) for v in verdicts) == 3
        assert {v.why for v in verdicts if isinstance(v, Drop)} == {
            "a pairing code was already sent to this sender", "three pairing codes are pending on this channel"}
        assert len(ledger.scan((PairingRequest.KIND,))) == 3
        clock.advance(3600)
        assert book.pending() == []
        assert isinstance(judge(message("s4", "s4", n=99), book, guard, 3600, frozenset()), Reply)
        assert ledger.scan((PairingGrant.KIND,)) == []


def test_pending_codes_survive_a_restart_and_can_be_approved_from_the_record():
    clock = ManualClock()
    with Ledger(":memory:", clock=clock.now) as ledger:
        book = book_on(ledger, clock)
        judge(message("ann", "ann"), book, LoopGuard(clock.now), 3600, frozenset())
        code = book.pending()[0].code
        again = book_on(ledger, clock)
        assert [p.code for p in again.pending()] == [code]
        assert again.approve(code).first is None  # the message that asked is not on the record
        assert again.paired(message("ann", "ann").subject)
        assert book_on(ledger, clock).pending() == []  # approved codes are spent


def test_own_messages_and_a_chatty_bot_are_dropped_before_the_book():
    clock = ManualClock()
    with Ledger(":memory:", clock=clock.now) as ledger:
        book, guard = book_on(ledger, clock), LoopGuard(clock.now, per_minute=10)
        assert isinstance(judge(message("me", "c"), book, guard, 3600, frozenset({"me"})), Drop)
        book._paired.add(message("bot", "bot").subject)
        verdicts = [judge(message("bot", "bot", n=i, bot=True), book, guard, 3600, frozenset()) for i in range(25)]
        assert sum(isinstance(v, Admit) for v in verdicts) == 10
        clock.advance(61)
        assert isinstance(judge(message("bot", "bot", n=99, bot=True), book, guard, 3600, frozenset()), Admit)


def test_replies_are_split_at_the_limit_at_a_break():
    text = ("para one " * 50 + "\n\n" + "x" * 100).strip()
    parts = split(text, 480)
    assert all(0 < len(p) <= 480 for p in parts) and "".join("".join(parts).split()) == "".join(text.split())
    assert parts[-1] == "x" * 100  # cut at the paragraph break
    assert split("", 100) == ["…"]


def test_a_denial_outlives_a_restart_and_ends_when_the_code_would_have_expired():
    clock = ManualClock()
    with Ledger(":memory:", clock=clock.now) as ledger:
        book, guard = book_on(ledger, clock), LoopGuard(clock.now)
        code = judge(message("eve", "eve"), book, guard, 600, frozenset())
        assert isinstance(code, Reply)
        book.deny(code.text.split("code: ")[1][:8])
        again = book_on(ledger, clock)  # rebuilt from the record, as after a restart
        assert again.pending() == []
        assert isinstance(judge(message("eve", "eve", n=2), again, guard, 600, frozenset()), Drop)
        clock.advance(601)
        assert isinstance(judge(message("eve", "eve", n=3), again, guard, 600, frozenset()), Reply)
        # an open channel admits a stranger, but never our own messages
        assert isinstance(judge(message("mallory", "m"), again, guard, 600, frozenset(), open_to_anyone=True), Admit)
        assert isinstance(judge(message("me", "m"), again, guard, 600, frozenset({"me"}), open_to_anyone=True), Drop)
