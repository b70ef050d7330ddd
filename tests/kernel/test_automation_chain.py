"""The automation tables' hash chain: an edit made with raw sqlite (triggers dropped) is found, by the store
and by ``agentdesk ledger verify`` (exit 6, the first broken row)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kernel.automations import Automation, RunRecord
from kernel.automations.chain import ChainBroken, ChainIntact, verify_file
from kernel.automations.store import _SCHEMA, AutomationStore
from kernel.cli import main
from ledger import Ledger


def _fill(store: AutomationStore) -> None:
    """A row in each of the five tables, written the way the kernel writes them."""
    a = Automation(id="a1", name="Digest", objective="o", schedule="every 1h")
    store.record(100.0, a, "create", "user")
    assert store.claim("a1", 3600.0, 0, "1:w", 3601.0)
    assert not store.claim("a1", 3600.0, 0, "2:w", 3601.0)  # the loser writes (and links) nothing
    store.note_agent("a1", 3600.0, 0, "agent-1")
    assert store.finish(RunRecord("a1", 3600.0, 0, 3700.0, "agent-1", "succeeded", "", "done", ("notes/a.md",)))
    item = store.inbox_add(3650.0, "a1", "request", "net.fetch", "asked for net.fetch")
    store.inbox_close(3800.0, store.inbox()[0], "dismissed")
    assert item == 1


def _tamper(db: Path, *statements: str) -> None:
    raw = sqlite3.connect(db)
    for sql in statements:
        raw.execute(sql)
    raw.commit()
    raw.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    store = AutomationStore(str(path))
    _fill(store)
    assert store.verify_chain() == ChainIntact(6)
    store.close()
    return path


@pytest.mark.parametrize("statements,table,row,says", [
    (("DROP TRIGGER automation_runs_no_update", "UPDATE automation_runs SET outcome='failed'"),
     "automation_runs", 1, "was changed"),
    (("DROP TRIGGER automation_events_no_update", "UPDATE automation_events SET actor='mallory'"),
     "automation_events", 1, "was changed"),
    (("DROP TRIGGER automation_claims_no_delete", "DELETE FROM automation_claims"),
     "automation_claims", 1, "was deleted"),
    (("INSERT INTO inbox_events(ts, item, action, automation, kind, scope, detail) "
      "VALUES (1, 1, 'added', 'a1', 'request', 'net.fetch', 'x')",), "inbox_events", 3, "added outside"),
    (("DROP TRIGGER automation_chain_no_update", "UPDATE automation_chain SET hash=zeroblob(32) WHERE seq=3"),
     "automation_run_agents", 1, "or its chain link #3 was changed"),
])
def test_a_raw_sqlite_edit_is_found_at_its_row(db: Path, statements, table, row, says) -> None:
    _tamper(db, *statements)
    found = verify_file(str(db))
    assert isinstance(found, ChainBroken) and (found.table, found.row) == (table, row) and says in found.reason
    store = AutomationStore(str(db))  # reopening does not relink what was changed
    assert store.verify_chain() == found
    store.close()


def test_removing_the_whole_chain_is_found(db: Path) -> None:
    _tamper(db, "DROP TABLE automation_chain")
    found = verify_file(str(db))
    assert isinstance(found, ChainBroken) and "no hash chain" in found.reason


def test_rows_written_before_the_chain_existed_are_linked_once_by_the_migration(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    raw = sqlite3.connect(path)
    raw.executescript(_SCHEMA)  # an older home: the tables, no chain
    raw.execute("INSERT INTO automation_events(ts, automation, action, actor, body) VALUES (1, 'a', 'create', "
                "'user', '{}')")
    raw.commit()
    raw.close()
    store = AutomationStore(str(path))
    store.record(2.0, Automation(id="a", name="n", objective="o", schedule="every 1h"), "pause", "user")
    assert store.verify_chain() == ChainIntact(2)
    store.close()
    again = AutomationStore(str(path))  # a second open links nothing twice
    assert again.verify_chain() == ChainIntact(2)
    again.close()


def test_ledger_verify_checks_the_automation_records_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("AGENTDESK_HOME", str(home))
    Ledger(home / "ledger.db").close()
    store = AutomationStore(str(home / "ledger.db"))
    _fill(store)
    store.close()
    assert main(["ledger", "verify"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "automation records intact: 6 rows"
    _tamper(home / "ledger.db", "DROP TRIGGER automation_runs_no_update",
            "UPDATE automation_runs SET outcome='nothing-to-do'")
    assert main(["ledger", "verify"]) == 6
    assert capsys.readouterr().out.splitlines()[-1] == (
        "automation records broken at automation_runs row 1: the row or its chain link #4 was changed after "
        "it was written")
