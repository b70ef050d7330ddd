"""Blob verification against tampering, and named schema migrations."""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

import pytest

from ledger import CorruptBlob, Ledger, LedgerUnavailable, ToolCall
from ledger.migrations import MIGRATIONS


def _tamper(path: Path, digest: str, codec: str, data: bytes) -> None:
    """Rewrite one blob with the append-only trigger dropped, as an attacker or a bad disk might."""
    raw = sqlite3.connect(path)
    raw.execute("DROP TRIGGER blobs_no_update")
    raw.execute("UPDATE blobs SET codec = ?, data = ? WHERE hash = ?", (codec, data, digest))
    raw.commit()
    raw.close()


@pytest.mark.parametrize("codec, data", [("raw", b"evil bytes"), ("zlib", zlib.compress(b"evil bytes")),
                                          ("zlib", b"not zlib at all")])
def test_tampered_blob_is_detected(tmp_path: Path, codec: str, data: bytes) -> None:
    path = tmp_path / "ledger.db"
    with Ledger(path) as ledger:
        good = ledger.put_blob(b"good " * 100)
        target = ledger.put_blob(b"precious " * 100)
        assert ledger.verify() == []
    _tamper(path, target, codec, data)
    with Ledger(path) as ledger:
        assert ledger.verify() == [target]
        assert ledger.verify([good]) == []
        with pytest.raises(CorruptBlob) as err:
            ledger.blob(target)
        assert err.value.digest == target
        assert ledger.blob(good) == b"good " * 100


def test_undo_refuses_to_restore_corrupt_bytes(tmp_path: Path) -> None:
    path, f = tmp_path / "ledger.db", tmp_path / "f.txt"
    with Ledger(path) as ledger:
        ledger.write_file(actor="a", path=f, content=b"original " * 20, cause=None)
        change = ledger.write_file(actor="a", path=f, content=b"new", cause=None)
    _tamper(path, change.before, "raw", b"evil")
    with Ledger(path) as ledger, pytest.raises(CorruptBlob):
        ledger.undo(1)
    assert f.read_bytes() == b"new"


def _names(path: Path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return [r[0] for r in db.execute("SELECT name FROM migrations ORDER BY rowid")]
    finally:
        db.close()


def test_empty_file_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    path.touch()
    with Ledger(path) as ledger:
        assert ledger.count() == 0
    assert _names(path) == [name for name, _ in MIGRATIONS]


def test_older_schema_is_migrated_and_data_kept(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with Ledger(path, _schema_upto=2) as old:
        call = old.append(ToolCall(actor="a", tool="t", scope="s", input={"k": 1}))
        digest = old.put_blob(b"kept")
    assert _names(path) == [name for name, _ in MIGRATIONS[:2]]
    with Ledger(path) as ledger:
        assert ledger.get(call.seq) == call
        assert ledger.blob(digest) == b"kept"
        change = ledger.write_file(actor="a", path=tmp_path / "f", content=b"x", cause=call.seq)
        assert ledger.undo(call.seq).reversed == (change.seq,)
    assert _names(path) == [name for name, _ in MIGRATIONS]
    with Ledger(path) as again:  # reopening applies nothing twice
        assert again.count() == 4


def test_unknown_newer_migration_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    Ledger(path).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO migrations(name, applied_at) VALUES ('999_from_the_future', 0)")
    db.commit()
    db.close()
    with pytest.raises(LedgerUnavailable) as err:
        Ledger(path)
    assert "999_from_the_future" in str(err.value)


def test_not_a_database_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(LedgerUnavailable):
        Ledger(path)


def test_missing_file_is_not_created_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "home" / "ledger.db"
    with pytest.raises(LedgerUnavailable):
        Ledger(path, create=False)
    assert not path.exists() and not path.parent.exists()
