"""Named, ordered schema migrations, recorded in the database they shaped.

A migration is applied once, in order, inside a transaction, and its name is
written to ``migrations``. A database that knows a migration this code does
not is from a newer Agentdesk and is refused rather than guessed at. Most
migrations are SQL; one that must compute (the hash chain of the entries
already there) is a function run inside the same kind of transaction.
"""

from __future__ import annotations

import sqlite3
from typing import Callable

from .chain import CHAIN_COLUMNS, GENESIS, link
from .errors import LedgerUnavailable

_NO_UPDATE = """
CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table}
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: {table} rows cannot be updated'); END;
"""
_APPEND_ONLY = _NO_UPDATE + """
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

# INSERT OR REPLACE deletes the row it collides with without firing the delete trigger (SQLite
# fires delete triggers for REPLACE only under recursive_triggers), so an insert is refused
# unless its seq is exactly the next one: that refuses an existing seq (before the conflict is
# resolved, so for REPLACE, OR IGNORE and upserts alike), back-dating into a gap, and skipping
# ahead, and it is what lets an append assume the newest row it knows of (see Ledger._insert).
# A blob insert that collides is dropped instead (RAISE(IGNORE)): blobs.put relies on INSERT OR
# IGNORE, and a blob's name is its hash.
_M004_NO_REPLACE = """
CREATE TRIGGER entries_in_order BEFORE INSERT ON entries
WHEN NEW.seq IS NOT (SELECT COALESCE(MAX(seq), 0) + 1 FROM entries)
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only: an entry can only be added after the newest one'); END;
CREATE TRIGGER blobs_no_replace BEFORE INSERT ON blobs
WHEN EXISTS (SELECT 1 FROM blobs WHERE hash = NEW.hash)
BEGIN SELECT RAISE(IGNORE); END;
"""

# Content provenance (kernel/trust/content_taint.py): "did a tainted actor ever write these bytes?" is a
# probe of ``after`` and, per writer found, of that actor's ``untrusted`` entries; "which bytes did the
# tainted actors write?" (a shell command's check) walks only their file changes after their taint.
_M006_PROVENANCE = """
CREATE INDEX entries_after ON entries(after, path) WHERE after IS NOT NULL;
CREATE INDEX entries_untrusted ON entries(actor, seq) WHERE kind = 'untrusted';
CREATE INDEX entries_writes ON entries(actor, seq, after, kind) WHERE kind = 'fs.write';
"""

_CHAIN_BATCH = 10_000


def _m005_chain(db: sqlite3.Connection) -> None:
    """Add the hash column and chain the entries already there, once, oldest first.

    The update trigger is lifted for this one transaction: it is the only time
    rows change, and the migration's record says when it happened. Measured
    2026-12: 21 s for a million entries, once. A row whose
    values cannot be serialised (damaged before the chain existed) is left
    without a hash, so every verify names it instead of vouching for it.
    """
    db.execute("ALTER TABLE entries ADD COLUMN hash BLOB")
    db.execute("DROP TRIGGER IF EXISTS entries_no_update")
    prev, after = GENESIS, 0
    select = f"SELECT {', '.join(CHAIN_COLUMNS)} FROM entries WHERE seq > ? ORDER BY seq LIMIT {_CHAIN_BATCH}"
    while True:
        rows = db.execute(select, (after,)).fetchall()
        if not rows:
            break
        hashes: list[tuple[bytes | None, int]] = []
        for row in rows:
            try:
                prev = link(prev, tuple(row))
            except (TypeError, ValueError):
                hashes.append((None, row[0]))
                continue
            hashes.append((prev, row[0]))
        db.executemany("UPDATE entries SET hash = ? WHERE seq = ?", hashes)
        after = rows[-1][0]
    db.execute(_NO_UPDATE.format(table="entries"))


Migration = str | Callable[[sqlite3.Connection], None]

MIGRATIONS: tuple[tuple[str, Migration], ...] = (
    ("001_entries", _M001_ENTRIES),
    ("002_blobs", _M002_BLOBS),
    ("003_reverts", _M003_REVERTS),
    ("004_no_replace", _M004_NO_REPLACE),
    ("005_chain", _m005_chain),
    ("006_provenance", _M006_PROVENANCE),
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
    for name, step in MIGRATIONS[len(done): len(known)]:
        try:
            _apply(db, name, step, now)
        except sqlite3.Error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            if name in applied(db):  # another process migrated first
                continue
            raise
        new.append(name)
    return new


def _apply(db: sqlite3.Connection, name: str, step: Migration, now: float) -> None:
    """One migration and its record, in one transaction."""
    if isinstance(step, str):
        # executescript commits any open transaction, so each SQL migration carries its own.
        db.executescript(
            f"BEGIN IMMEDIATE;\n{step}\nINSERT INTO migrations(name, applied_at) VALUES ('{name}', {now!r});\nCOMMIT;"
        )
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        step(db)
        db.execute("INSERT INTO migrations(name, applied_at) VALUES (?, ?)", (name, now))
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
