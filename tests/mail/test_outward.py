"""The exactly-once book on a real ledger (no servers): keys, replay, verification, unknown."""

from __future__ import annotations

import asyncio

from kernel.core.clock import ManualClock
from kernel.core.errors import ToolFailure
from kernel.tools.outward import NotDone, OutwardBook, idempotency_key, unknown_intents
from kernel.tools.descriptor import ToolContext
from ledger import Intent, Ledger


def _ctx(ledger, call_id="c1", turn=1, agent="a-1"):
    return ToolContext(agent, None, ledger, 0, ManualClock(), call_id=call_id, turn=turn)  # type: ignore[arg-type]


def test_keys_are_canonical_and_an_identical_call_in_one_turn_shares_the_first_key(tmp_path):
    assert idempotency_key("a", "t", {"x": 1, "y": 2}, "c") == idempotency_key("a", "t", {"y": 2, "x": 1}, "c")
    assert idempotency_key("a", "t", {"x": 1}, "c") != idempotency_key("a", "t", {"x": 1}, "d")
    with Ledger(tmp_path / "l.db") as ledger:
        book = OutwardBook(ledger)
        first = book.key_for(_ctx(ledger, "c1", 1), "mail_send", {"to": ["a@x"]})
        assert book.key_for(_ctx(ledger, "c2", 1), "mail_send", {"to": ["a@x"]}) == first
        assert book.key_for(_ctx(ledger, "c3", 2), "mail_send", {"to": ["a@x"]}) != first


def test_acts_once_replays_and_settles(tmp_path):
    acted: list[str] = []

    async def act(key):
        acted.append(key)
        return {"n": len(acted)}

    async def unsure(key):
        raise OSError("connection reset")

    async def refused(key):
        raise NotDone("the server refused the recipient")

    async def found(intent):
        return True

    async def cannot_tell(intent):
        raise ToolFailure("the server is down")

    with Ledger(tmp_path / "l.db") as ledger:
        book = OutwardBook(ledger)
        ctx = _ctx(ledger)
        outcome, replayed = asyncio.run(book.once(ctx, "mail_send", {"a": 1}, str, act, found))
        assert outcome.status == "done" and not replayed and len(acted) == 1
        again, replayed = asyncio.run(OutwardBook(ledger).once(ctx, "mail_send", {"a": 1}, str, act, found))
        assert replayed and again.seq == outcome.seq and len(acted) == 1  # a new kernel replays from the ledger
        verified, _ = asyncio.run(book.once(_ctx(ledger, "c2", 2), "mail_send", {"a": 2}, str, unsure, found))
        assert verified.status == "done" and verified.data == {"verified": True}
        failed, _ = asyncio.run(book.once(_ctx(ledger, "c3", 3), "mail_send", {"a": 3}, str, refused, found))
        assert failed.status == "failed" and "refused the recipient" in failed.detail
        lost, _ = asyncio.run(book.once(_ctx(ledger, "c4", 4), "mail_send", {"a": 4}, str, unsure, cannot_tell))
        assert lost.status == "unknown" and "connection reset" in lost.detail and "the server is down" in lost.detail
        [unknown] = unknown_intents(ledger)
        assert unknown.intent_seq == lost.cause and isinstance(ledger.get(lost.cause), Intent)
        assert book.open_intents() == []
        keys = [v for _, v in ledger.body_values("intent", "key")]
        assert len(set(keys)) == 4 and all(isinstance(k, str) and len(k) == 64 for k in keys)
