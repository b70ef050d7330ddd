"""Tamper evidence: every attack a raw sqlite3 connection can make is refused or caught by the chain."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from pathlib import Path

import pytest

from ledger import Broken, FileChange, Head, Intact, Ledger, ToolCall
from ledger.chain import CHAIN_COLUMNS, GENESIS, canonical, stored_values
from ledger.integrity import head_path, read_head
from ledger.migrations import MIGRATIONS


def _history(path: Path, tmp_path: Path, n: int = 6) -> None:
    """seq 1..n-2: tool calls; n-1: a file change (blob stored); n: another call."""
    with Ledger(path, clock=lambda: 1_700_000_000.25) as ledger:
        for i in range(n - 2):
            ledger.append(ToolCall(actor="a1", tool="fs_read", scope="fs.read", input={"i": i, "odd": "é\ud800"}))
        ledger.write_file(actor="a1", path=tmp_path / "f.txt", content=b"precious " * 40, cause=1)
        ledger.append(ToolCall(actor="a1", tool="fs_read", scope="fs.read", lease=2))


def _raw(path: Path, *statements: str, args: tuple = ()) -> None:
    """What an attacker with the file does: a plain connection, no Agentdesk code."""
    db = sqlite3.connect(path)
    for sql in statements:
        db.execute(sql, args if "?" in sql else ())
    db.commit()
    db.close()


def _verify(path: Path):
    with Ledger(path) as ledger:
        return ledger.verify_chain()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    _history(path, tmp_path)
    return path


def test_hash_is_sha256_of_prev_and_sorted_json(db: Path) -> None:
    raw = sqlite3.connect(db)
    rows = raw.execute(f"SELECT {', '.join(CHAIN_COLUMNS)}, hash FROM entries ORDER BY seq").fetchall()
    prev = GENESIS
    for row in rows:
        values, digest = row[:-1], row[-1]
        text = json.dumps(dict(zip(CHAIN_COLUMNS, values)), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        assert canonical(values) == text.encode("ascii")
        assert digest == hashlib.sha256(prev + text.encode("ascii")).digest()
        prev = digest
    assert [r[0] for r in rows] == [1, 2, 3, 4, 5, 6]


def test_values_are_hashed_as_sqlite_stores_them() -> None:
    row = (1, 1700000000, "a", "tool", 1, None, None, None, 5.0, True, None, None, None, "{}")
    assert stored_values(row) == (1, 1700000000.0, "a", "tool", 1, None, None, None, 5, 1, None, None, None, "{}")
    with pytest.raises(TypeError):
        stored_values((1, 1.0, b"bytes", "tool", 1, None, None, None, None, None, None, None, None, "{}"))
    with pytest.raises(TypeError):
        stored_values((1, 1.0, "a", "tool", 1, None, None, None, "5", None, None, None, None, "{}"))


def test_an_integer_clock_still_verifies(tmp_path: Path) -> None:
    with Ledger(tmp_path / "l.db", clock=lambda: 1_700_000_000) as ledger:
        ledger.append(ToolCall(actor="a", tool="t", scope="s"))
        assert isinstance(ledger.verify_chain(), Intact)


def test_intact_ledger_verifies_and_records_its_head(db: Path) -> None:
    result = _verify(db)
    assert isinstance(result, Intact)
    assert (result.entries, result.blobs, result.checked, result.upto) == (6, 1, 6, 6)
    raw = sqlite3.connect(db)
    assert read_head(head_path(db)) == Head(6, raw.execute("SELECT hash FROM entries WHERE seq = 6").fetchone()[0].hex())


@pytest.mark.parametrize("statement", [
    "INSERT OR REPLACE INTO entries(seq, ts, actor, kind, version, body) VALUES (2, 0, 'mallory', 'tool', 1, '{}')",
    "REPLACE INTO entries(seq, ts, actor, kind, version, body) VALUES (2, 0, 'mallory', 'tool', 1, '{}')",
    "INSERT OR IGNORE INTO entries(seq, ts, actor, kind, version, body) VALUES (2, 0, 'mallory', 'tool', 1, '{}')",
    "INSERT INTO entries(seq, ts, actor, kind, version, body) VALUES (2, 0, 'mallory', 'tool', 1, '{}') "
    "ON CONFLICT(seq) DO UPDATE SET actor = 'mallory'",
])
def test_insert_over_an_existing_seq_is_refused(db: Path, statement: str) -> None:
    raw = sqlite3.connect(db)
    before = raw.execute("SELECT * FROM entries ORDER BY seq").fetchall()
    with pytest.raises(sqlite3.IntegrityError) as err:
        raw.execute(statement)
    assert str(err.value) == "the ledger is append-only: an entry can only be added after the newest one"
    raw.rollback()
    assert raw.execute("SELECT * FROM entries ORDER BY seq").fetchall() == before
    raw.close()
    assert isinstance(_verify(db), Intact)


def test_replacing_a_blob_changes_nothing(db: Path) -> None:
    raw = sqlite3.connect(db)
    digest, data = raw.execute("SELECT hash, data FROM blobs").fetchone()
    raw.execute("INSERT OR REPLACE INTO blobs(hash, size, codec, data) VALUES (?, 4, 'raw', x'00')", (digest,))
    raw.commit()
    assert raw.execute("SELECT data FROM blobs WHERE hash = ?", (digest,)).fetchone()[0] == data
    raw.close()


def test_drop_trigger_then_update_is_caught(db: Path) -> None:
    _raw(db, "DROP TRIGGER entries_no_update", "UPDATE entries SET actor = 'mallory' WHERE seq = 3")
    result = _verify(db)
    assert isinstance(result, Broken) and (result.seq, result.problem) == (3, "altered")


def test_changing_only_the_timestamp_is_caught(db: Path) -> None:
    _raw(db, "DROP TRIGGER entries_no_update", "UPDATE entries SET ts = ts + 0.001 WHERE seq = 2")
    assert _verify(db) == Broken(2, "altered", "it does not match its hash (it was changed after it was written)")


def test_drop_trigger_then_replace_is_caught(db: Path) -> None:
    _raw(db, "DROP TRIGGER entries_in_order",
         "INSERT OR REPLACE INTO entries(seq, ts, actor, kind, version, body, hash) "
         "SELECT seq, ts, 'mallory', kind, version, body, hash FROM entries WHERE seq = 4")
    result = _verify(db)
    assert isinstance(result, Broken) and result.seq == 4


def test_a_value_of_another_type_is_caught_not_crashed_on(db: Path) -> None:
    _raw(db, "DROP TRIGGER entries_no_update", "UPDATE entries SET actor = x'00ff' WHERE seq = 2")
    result = _verify(db)
    assert isinstance(result, Broken) and result.seq == 2 and "wrong type" in result.reason


@pytest.mark.parametrize("seq", ["NULL", "9", "3"])
def test_inserts_out_of_order_are_refused(db: Path, seq: str) -> None:
    """No row without a seq, none skipping ahead (a gap), none back-dated into a gap."""
    raw = sqlite3.connect(db)
    if seq == "3":
        raw.execute("DROP TRIGGER entries_no_delete")
        raw.execute("DELETE FROM entries WHERE seq = 3")
    with pytest.raises(sqlite3.IntegrityError):
        raw.execute(f"INSERT INTO entries(seq, ts, actor, kind, version, body) VALUES ({seq}, 0, 'm', 'tool', 1, '{{}}')")
    raw.close()


def test_an_entry_added_without_a_hash_is_named(db: Path) -> None:
    _raw(db, "INSERT INTO entries(seq, ts, actor, kind, version, body) VALUES (7, 0, 'mallory', 'tool', 1, '{}')")
    result = _verify(db)
    assert isinstance(result, Broken) and (result.seq, result.problem) == (7, "unchained")


def test_a_deleted_entry_is_named_missing(db: Path) -> None:
    _raw(db, "DROP TRIGGER entries_no_delete", "DELETE FROM entries WHERE seq IN (3, 4)")
    assert _verify(db) == Broken(3, "missing", "entries #3–#4 are missing")


def test_edited_blob_bytes_are_caught_at_the_entry_that_names_them(db: Path) -> None:
    _raw(db, "DROP TRIGGER blobs_no_update", "UPDATE blobs SET codec = 'raw', data = x'6576696c'")
    result = _verify(db)
    assert isinstance(result, Broken) and (result.seq, result.problem) == (5, "blob")
    assert "corrupted" in result.reason


def test_a_deleted_blob_is_caught(db: Path) -> None:
    _raw(db, "DROP TRIGGER blobs_no_delete", "DELETE FROM blobs")
    result = _verify(db)
    assert isinstance(result, Broken) and result.seq == 5 and "missing" in result.reason


def test_a_damaged_blob_no_entry_names_is_still_damage(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    with Ledger(path) as ledger:
        ledger.put_blob(b"orphan " * 20)
    _raw(path, "DROP TRIGGER blobs_no_update", "UPDATE blobs SET data = x'00'")
    result = _verify(path)
    assert isinstance(result, Broken) and result.seq is None and result.problem == "blob"


def test_truncating_the_tail_is_caught_against_the_recorded_head(db: Path) -> None:
    assert isinstance(_verify(db), Intact)  # records head #6
    _raw(db, "DROP TRIGGER entries_no_delete", "DELETE FROM entries WHERE seq >= 5")
    assert _verify(db) == Broken(5, "truncated", "entries #5–#6 are missing (the ledger was verified up to #6)")


def test_truncation_without_a_recorded_head_is_not_detectable(db: Path) -> None:
    """The documented limit: with no head kept anywhere, a shorter chain is a consistent chain."""
    _raw(db, "DROP TRIGGER entries_no_delete", "DELETE FROM entries WHERE seq >= 5")
    assert isinstance(_verify(db), Intact)


def _rechain(path: Path, seq: int, actor: str) -> None:
    """The clever attacker: change an entry and recompute every hash after it."""
    db = sqlite3.connect(path)
    db.execute("DROP TRIGGER entries_no_update")
    db.execute("UPDATE entries SET actor = ? WHERE seq = ?", (actor, seq))
    prev = GENESIS
    for row in db.execute(f"SELECT {', '.join(CHAIN_COLUMNS)} FROM entries ORDER BY seq").fetchall():
        prev = hashlib.sha256(prev + canonical(row)).digest()
        db.execute("UPDATE entries SET hash = ? WHERE seq = ?", (prev, row[0]))
    db.commit()
    db.close()


def test_a_rewritten_and_rechained_history_is_caught_against_the_recorded_head(db: Path) -> None:
    assert isinstance(_verify(db), Intact)
    _rechain(db, 2, "mallory")
    result = _verify(db)
    assert isinstance(result, Broken) and (result.seq, result.problem) == (6, "altered")


def test_the_writer_keeps_the_chain_across_objects(tmp_path: Path) -> None:
    """Two Ledger objects on one file (as two processes would be) append in turn."""
    path = tmp_path / "l.db"
    one, two = Ledger(path), Ledger(path)
    for i in range(5):
        (one if i % 2 else two).append(ToolCall(actor="a", tool="t", scope="s", input={"i": i}))
    two.append_many([ToolCall(actor="b", tool="t", scope="s") for _ in range(3)])
    one.append_numbered(lambda seq: ToolCall(actor=f"a{seq}", tool="t", scope="s"))
    assert one.get(9).actor == "a9"
    assert isinstance(one.verify_chain(), Intact) and one.count() == 9
    one.close()
    two.close()


# ---- migration ----------------------------------------------------------------------


def _record_outside_change(ledger: Ledger, path: Path, after: bytes) -> None:
    """A change recorded without landing, the way the kernel records what other programs did."""
    ledger.append(FileChange(actor="a", path=str(path.resolve()), before=None, after=ledger.put_blob(after), cause=1))


def test_an_existing_ledger_is_chained_once_by_a_named_migration(tmp_path: Path) -> None:
    old, fresh = tmp_path / "old.db", tmp_path / "fresh.db"
    with Ledger(old, clock=lambda: 1000.5, _schema_upto=3) as ledger:
        for i in range(25):
            ledger.append(ToolCall(actor="a", tool="t", scope="s", input={"i": i}))
        _record_outside_change(ledger, tmp_path / "f", b"x" * 100)
    assert "hash" not in {r[1] for r in sqlite3.connect(old).execute("PRAGMA table_info(entries)")}
    with Ledger(fresh, clock=lambda: 1000.5) as ledger:  # the same history written by this version
        for i in range(25):
            ledger.append(ToolCall(actor="a", tool="t", scope="s", input={"i": i}))
        _record_outside_change(ledger, tmp_path / "f", b"x" * 100)
    with Ledger(old) as ledger:
        assert isinstance(ledger.verify_chain(), Intact)
    names = [r[0] for r in sqlite3.connect(old).execute("SELECT name FROM migrations ORDER BY rowid")]
    assert names == [name for name, _ in MIGRATIONS] and "005_chain" in names
    hashes = [sqlite3.connect(p).execute("SELECT hash FROM entries ORDER BY seq").fetchall() for p in (old, fresh)]
    assert hashes[0] == hashes[1]
    raw = sqlite3.connect(old)  # the update trigger is back
    with pytest.raises(sqlite3.IntegrityError):
        raw.execute("UPDATE entries SET actor = 'm'")


def test_migration_leaves_a_damaged_old_row_unchained(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with Ledger(path, _schema_upto=3) as ledger:
        for i in range(4):
            ledger.append(ToolCall(actor="a", tool="t", scope="s"))
    _raw(path, "DROP TRIGGER entries_no_update", "UPDATE entries SET actor = x'00' WHERE seq = 3")
    result = _verify(path)
    assert isinstance(result, Broken) and (result.seq, result.problem) == (3, "unchained")


# ---- the check at start ---------------------------------------------------------------


def test_check_at_start_walks_only_what_is_new(db: Path) -> None:
    with Ledger(db) as ledger:
        first = ledger.check_at_start()
        assert isinstance(first, Intact) and first.checked == 6
        ledger.append(ToolCall(actor="a", tool="t", scope="s"))
        again = ledger.check_at_start(spot_checks=0)
        assert isinstance(again, Intact) and (again.checked, again.upto) == (1, 7)
        assert read_head(head_path(db)).seq == 7  # type: ignore[union-attr]


def test_check_at_start_spot_checks_older_entries(db: Path) -> None:
    with Ledger(db) as ledger:
        assert isinstance(ledger.check_at_start(), Intact)
    _raw(db, "DROP TRIGGER entries_no_update", "UPDATE entries SET actor = 'mallory' WHERE seq = 2")
    with Ledger(db) as ledger:
        assert isinstance(ledger.check_at_start(spot_checks=0), Intact)  # incremental: not seen without sampling
        result = ledger.check_at_start(spot_checks=50, rng=random.Random(1))
        assert isinstance(result, Broken) and result.seq == 2
        assert isinstance(ledger.verify_chain(), Broken)


@pytest.mark.parametrize("attack, seq, problem", [
    (lambda p: _raw(p, "DROP TRIGGER entries_no_delete", "DELETE FROM entries WHERE seq >= 4"), 4, "truncated"),
    (lambda p: _rechain(p, 2, "mallory"), 6, "altered"),
    (lambda p: _raw(p, "DROP TRIGGER entries_no_update", "UPDATE entries SET actor = 'm' WHERE seq = 6"), 6, "altered"),
])
def test_check_at_start_catches_changes_to_the_recorded_head(db: Path, attack, seq: int, problem: str) -> None:
    with Ledger(db) as ledger:
        assert isinstance(ledger.check_at_start(), Intact)
    attack(db)
    with Ledger(db) as ledger:
        result = ledger.check_at_start(spot_checks=0)
    assert isinstance(result, Broken) and (result.seq, result.problem) == (seq, problem)


def test_check_at_start_catches_new_entries_that_do_not_chain(db: Path) -> None:
    with Ledger(db) as ledger:
        assert isinstance(ledger.check_at_start(), Intact)
        ledger.append(ToolCall(actor="a", tool="t", scope="s"))
    _raw(db, "DROP TRIGGER entries_no_update", "UPDATE entries SET scope = 'x' WHERE seq = 7")
    with Ledger(db) as ledger:
        assert ledger.check_at_start(spot_checks=0) == Broken(
            7, "altered", "it does not match its hash (it was changed after it was written)")
        assert read_head(head_path(db)).seq == 6  # type: ignore[union-attr]


@pytest.mark.parametrize("content", ["", "{", "[]", '{"seq": "6", "hash": "00"}', '{"seq": 6, "hash": "zz"}',
                                     '{"seq": -1, "hash": "' + "00" * 32 + '"}'])
def test_a_hostile_head_file_means_a_full_walk(db: Path, content: str) -> None:
    head_path(db).write_text(content)
    with Ledger(db) as ledger:
        result = ledger.check_at_start()
    assert isinstance(result, Intact) and result.checked == 6


def test_a_new_ledger_forgets_the_head_of_a_deleted_one(db: Path) -> None:
    assert isinstance(_verify(db), Intact)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    with Ledger(db) as ledger:  # starting over is not truncation
        ledger.append(ToolCall(actor="a", tool="t", scope="s"))
        assert isinstance(ledger.check_at_start(), Intact)


def test_own_files_names_the_lock_and_the_head(db: Path) -> None:
    assert isinstance(_verify(db), Intact)
    with Ledger(db) as ledger:
        beside = {p.name for p in db.parent.iterdir() if p.name.startswith("ledger.")}
        assert beside <= {Path(p).name for p in ledger.own_files}
        assert {"ledger.db-lock", "ledger.verified"} <= beside
