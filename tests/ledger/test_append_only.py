"""Append-only: the triggers refuse UPDATE and DELETE, and undo and redo only ever add rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ledger import Ledger, ToolCall


def _rows(db: sqlite3.Connection, table: str) -> list[tuple]:
    return db.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()


@pytest.fixture
def ledger_file(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    with Ledger(path) as ledger:
        call = ledger.append(ToolCall(actor="a", tool="fs.write", scope="fs.write"))
        ledger.write_file(actor="a", path=tmp_path / "f.txt", content=b"hello" * 40, cause=call.seq)
    return path


@pytest.mark.parametrize("table, statement, verb", [
    ("entries", "UPDATE entries SET actor = 'mallory'", "updated"),
    ("entries", "DELETE FROM entries WHERE seq = 1", "deleted"),
    ("blobs", "UPDATE blobs SET data = x'00'", "updated"),
    ("blobs", "DELETE FROM blobs", "deleted"),
])
def test_raw_update_and_delete_are_refused(ledger_file: Path, table: str, statement: str, verb: str) -> None:
    db = sqlite3.connect(ledger_file)
    before = _rows(db, table)
    with pytest.raises(sqlite3.IntegrityError) as err:
        db.execute(statement)
    assert str(err.value) == f"the ledger is append-only: {table} rows cannot be {verb}"
    db.rollback()
    assert _rows(db, table) == before
    db.close()


def test_undo_and_redo_only_add_rows(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.db")
    for i in range(5):
        ledger.write_file(actor="a", path=tmp_path / f"f{i % 3}.txt", content=f"v{i}".encode(), cause=None)
    history = []
    for step in (lambda: ledger.undo(2), lambda: ledger.undo(5), lambda: ledger.undo(0)):
        entries, blobs = _rows(ledger.connection, "entries"), _rows(ledger.connection, "blobs")
        report = step()
        assert report.undo_seq is not None
        after_entries, after_blobs = _rows(ledger.connection, "entries"), _rows(ledger.connection, "blobs")
        assert len(after_entries) > len(entries)
        assert after_entries[: len(entries)] == entries  # earlier rows untouched
        assert after_blobs[: len(blobs)] == blobs
        history.append(report)
    assert [r.dry_run for r in history] == [False, False, False]
    ledger.close()


def test_dry_run_adds_nothing(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.db")
    ledger.write_file(actor="a", path=tmp_path / "f.txt", content=b"x", cause=None)
    rows = _rows(ledger.connection, "entries")
    report = ledger.undo(0, dry_run=True)
    assert report.dry_run and report.undo_seq is None and len(report.steps) == 1
    assert _rows(ledger.connection, "entries") == rows
    assert (tmp_path / "f.txt").read_bytes() == b"x"
    ledger.close()
