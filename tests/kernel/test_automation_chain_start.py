"""The kernel checks the automation records' own hash chain at start, as it does the ledger's: incrementally
from a recorded head, and says what it found through the facade (``automation_integrity``)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from kernel.automations import Automation, chain_start
from kernel.automations.chain import ChainBroken, ChainIntact
from kernel.automations.store import AutomationStore
from kernel.compose import build_kernel
from kernel.providers.scripted import ScriptedProvider
from kernel.config.settings import Settings
from ledger import Ledger

from .test_automation_chain import _fill, _tamper


def _start(path: Path) -> ChainIntact | ChainBroken:
    """What a kernel starting on the ledger at ``path`` found of the automation chain."""
    provider = ScriptedProvider()
    with Ledger(path) as ledger:
        kernel = build_kernel(ledger=ledger, settings=Settings(user_name="Ada", workspace=str(path.parent)),
                        providers=lambda _name: provider)
        return kernel.automations.integrity()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    Ledger(path).close()
    store = AutomationStore(str(path))
    _fill(store)
    store.close()
    return path


def _head(db: Path) -> int | None:
    from ledger.integrity import read_head

    head = read_head(chain_start.head_path(db))
    return None if head is None else head.seq


def test_start_checks_the_chain_and_then_only_what_was_added(db: Path) -> None:
    assert _start(db) == ChainIntact(6)
    assert _head(db) == 6  # recorded beside the ledger: the next start goes on from there
    store = AutomationStore(str(db))
    store.record(200.0, Automation(id="a1", name="Digest", objective="o", schedule="every 1h"), "pause", "user")
    store.close()
    assert _start(db) == ChainIntact(7) and _head(db) == 7


EDITS = [
    (("DROP TRIGGER automation_runs_no_update", "UPDATE automation_runs SET outcome='failed'"),
     "automation_runs", 1, "was changed"),
    (("DROP TRIGGER automation_claims_no_delete", "DELETE FROM automation_claims"),
     "automation_claims", 1, "was deleted"),
    (("INSERT INTO inbox_events(ts, item, action, automation, kind, scope, detail) "
      "VALUES (1, 1, 'added', 'a1', 'request', 'net.fetch', 'x')",), "inbox_events", 3, "added outside"),
    (("DROP TRIGGER automation_chain_no_update", "UPDATE automation_chain SET hash=zeroblob(32) WHERE seq=3"),
     "automation_run_agents", 1, "or its chain link #3 was changed"),
]


@pytest.mark.parametrize("statements,table,row,says", EDITS)
@pytest.mark.parametrize("checked_before", [False, True], ids=["first-start", "after-a-start"])
def test_a_raw_sqlite_edit_is_found_at_start_naming_table_and_row(db: Path, checked_before: bool, statements,
                                                                  table, row, says) -> None:
    if checked_before:
        assert _start(db) == ChainIntact(6)
    _tamper(db, *statements)
    found = _start(db)
    assert isinstance(found, ChainBroken) and (found.table, found.row) == (table, row) and says in found.reason
    assert _head(db) == (6 if checked_before else None)  # a broken chain moves no head


def test_newest_links_cut_off_are_found(db: Path) -> None:
    assert _start(db) == ChainIntact(6)
    _tamper(db, "DROP TRIGGER automation_chain_no_delete", "DROP TRIGGER inbox_events_no_delete",
            "DELETE FROM automation_chain WHERE seq > 4", "DELETE FROM inbox_events")
    found = _start(db)
    assert isinstance(found, ChainBroken) and (found.table, found.row) == ("automation_chain", 5)
    assert "#5–#6 are missing" in found.reason


def test_a_chain_rebuilt_over_changed_rows_does_not_match_the_recorded_head(db: Path) -> None:
    assert _start(db) == ChainIntact(6)
    # the whole chain dropped: the store's migration links the rows afresh, as if they had always been so
    _tamper(db, "DROP TABLE automation_chain", "DROP TRIGGER automation_events_no_update",
            "UPDATE automation_events SET actor='mallory'")
    found = _start(db)
    assert isinstance(found, ChainBroken) and "no longer carries the hash an earlier check verified" in found.reason


def test_older_links_are_trusted_to_the_head_and_spot_checked(db: Path) -> None:
    """The quick check hashes only what came after the head, plus spot checks: with none, an old edit
    passes (``ledger verify`` walks it all); with them, on a short chain every link is checked."""
    assert _start(db) == ChainIntact(6)
    _tamper(db, "DROP TRIGGER automation_runs_no_update", "UPDATE automation_runs SET outcome='failed'")
    head = chain_start.head_path(db)
    raw = sqlite3.connect(db, isolation_level=None)
    try:
        assert chain_start.check(raw, head, spot_checks=0) == ChainIntact(6)
        found = chain_start.check(raw, head, rng=random.Random(1))
    finally:
        raw.close()
    assert isinstance(found, ChainBroken) and (found.table, found.row) == ("automation_runs", 1)
