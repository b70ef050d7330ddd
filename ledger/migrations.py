"""Named, ordered schema migrations, recorded in the database they shaped.

A migration is applied once, in order, inside a transaction, and its name is
written to ``migrations``. A database that knows a migration this code does
not is from a newer Agentdesk and is refused rather than guessed at.
"""

from __future__ import annotations

import sqlite3
from .errors import LedgerUnavailable

_APPEND_ONLY = """
CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table}
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: {table} rows cannot be updated'); END;
CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table}
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: {table} rows cannot be deleted'); END;
"""


_M001_ENTRIES = """
CREATE TABLE entries (
    seq     INTEGER PRIMARY KEY,
    ts      REAL    NOT NULL,
    actor   TEXT    NOT NULL,
    kind    TEXT    NOT NULL,
    version INTEGER NOT NULL,
    tool    TEXT,
    scope   TEXT,
    path    TEXT,
    cause   INTEGER,
    lease   INTEGER,
    before  TEXT,
    after   TEXT,
    body    TEXT    NOT NULL
);
CREATE INDEX entries_actor ON entries(actor, seq);
CREATE INDEX entries_kind ON entries(kind, seq);
CREATE INDEX entries_path ON entries(path, seq) WHERE path IS NOT NULL;
CREATE INDEX entries_cause ON entries(cause) WHERE cause IS NOT NULL;
""" + _APPEND_ONLY.format(table="entries")

_M002_BLOBS = """
CREATE TABLE blobs (
    hash  TEXT PRIMARY KEY,
    size  INTEGER NOT NULL,
    codec TEXT NOT NULL,
    data  BLOB NOT NULL
);
""" + _APPEND_ONLY.format(table="blobs")

# Reversals name the change they reverse, so "undone by" is one index probe.
_M003_REVERTS = """
ALTER TABLE entries ADD COLUMN reverts INTEGER;
CREATE INDEX entries_reverts ON entries(reverts) WHERE reverts IS NOT NULL;
"""

MIGRATIONS: tuple[tuple[str, str], ...] = (
    ("001_entries", _M001_ENTRIES),
    ("002_blobs", _M002_BLOBS),
    ("003_reverts", _M003_REVERTS),
)


def applied(db: sqlite3.Connection) -> list[str]:
    """Names of the migrations this database has, in order."""
    db.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
    return [row[0] for row in db.execute("SELECT name FROM migrations ORDER BY rowid")]


def migrate(db: sqlite3.Connection, path: str, now: float, upto: int | None = None) -> list[str]:
    """Bring the schema up to date (or to the first ``upto`` migrations); returns those applied now."""
    known = [name for name, _ in MIGRATIONS[:upto]]
    done = applied(db)
    if done != [name for name, _ in MIGRATIONS][: len(done)]:
        raise LedgerUnavailable(path, f"its schema {done[-1]!r} is unknown to this Agentdesk (newer?)")
    new = []
    for name, sql in MIGRATIONS[len(done): len(known)]:
        # executescript commits any open transaction, so each migration carries its own.
        try:
            db.executescript(
                f"BEGIN IMMEDIATE;\n{sql}\nINSERT INTO migrations(name, applied_at) VALUES ('{name}', {now!r});\nCOMMIT;"
            )
        except sqlite3.Error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            if name in applied(db):  # another process migrated first
                continue
            raise
        new.append(name)
    return new
