"""Entry versions: rows of an older shape are upcast on reading, rows of a newer shape are refused.

Rows are written by the real store with a class of the old (or newer) shape,
then read back with the current class registered for the kind, as a later
(or earlier) Agentdesk would. Old rows are never rewritten: the chain holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from ledger import Entry, Intact, Ledger, LedgerError, NewerVersion, ToolCall
from ledger.entries import ENTRY_TYPES

KIND = "test.note"


@dataclass(frozen=True, kw_only=True)
class NoteV1(Entry):
    """How version 1 stored a note: its subject was called ``who``."""

    KIND: ClassVar[str] = KIND
    VERSION: ClassVar[int] = 1
    who: str


@dataclass(frozen=True, kw_only=True)
class NoteV2(Entry):
    """Version 2 renamed ``who`` to ``subject``."""

    KIND: ClassVar[str] = KIND
    VERSION: ClassVar[int] = 2
    subject: str


@dataclass(frozen=True, kw_only=True)
class Note(Entry):
    """The current shape, version 3: a ``text`` was added (old notes have none)."""

    KIND: ClassVar[str] = KIND
    VERSION: ClassVar[int] = 3
    subject: str
    text: str

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        state["subject"] = state.pop("who")

    @staticmethod
    def upcast_v2_v3(state: dict[str, Any]) -> None:
        state["text"] = ""


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    with Ledger(tmp_path / "ledger.db", clock=lambda: 1000.0) as opened:
        yield opened  # type: ignore[misc]


def test_older_versions_are_upcast_one_step_at_a_time(ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    v1 = ledger.append(NoteV1(actor="a", who="alice"))
    v2 = ledger.append(NoteV2(actor="a", subject="bob"))
    v3 = ledger.append(Note(actor="a", subject="carol", text="hello"))
    monkeypatch.setitem(ENTRY_TYPES, KIND, Note)
    assert ledger.get(v1.seq) == Note(actor="a", seq=v1.seq, ts=1000.0, subject="alice", text="")
    assert ledger.get(v2.seq) == Note(actor="a", seq=v2.seq, ts=1000.0, subject="bob", text="")
    assert ledger.get(v3.seq) == v3
    assert ledger.page(kind=KIND) == [ledger.get(v3.seq), ledger.get(v2.seq), ledger.get(v1.seq)]
    assert isinstance(ledger.verify_chain(), Intact)  # upcasting reads; the rows stay as written


def test_a_newer_version_is_refused(ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    newer = ledger.append(Note(actor="a", subject="carol", text="hello"))
    monkeypatch.setitem(ENTRY_TYPES, KIND, NoteV2)  # an older Agentdesk reading what a newer one wrote
    with pytest.raises(NewerVersion) as refused:
        ledger.get(newer.seq)
    assert isinstance(refused.value, LedgerError)
    assert (refused.value.seq, refused.value.kind, refused.value.version, refused.value.known) == (newer.seq, KIND, 3, 2)
    with pytest.raises(NewerVersion):
        ledger.page()


def test_a_newer_version_of_a_real_kind_is_refused(ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as newer_agentdesk:
        newer_agentdesk.setattr(ToolCall, "VERSION", ToolCall.VERSION + 1)
        call = ledger.append(ToolCall(actor="a", tool="t", scope="s"))
    with pytest.raises(NewerVersion):
        ledger.get(call.seq)


def test_every_kind_can_upcast_from_version_1() -> None:
    for cls in ENTRY_TYPES.values():
        missing = [n for n in range(1, cls.VERSION) if not callable(getattr(cls, f"upcast_v{n}_v{n + 1}", None))]
        assert missing == [], f"{cls.__name__} has no upcaster from version(s) {missing}"
