"""Tamper evidence for the automation tables: one hash chain over every row, checked by ``ledger verify``.

The five tables (definitions, claims, runs, run agents, the Inbox) live in
the ledger's file beside ``entries`` and are append-only by trigger, but
triggers stop mistakes, not someone holding the file. So, as the ledger
chains its entries (``ledger/chain.py``), every row written here also adds a
row to ``automation_chain``: ``(seq, tbl, row, hash)`` where ``hash =
sha256(prev_hash || tbl || row || canonical)``, ``prev_hash`` the previous
chain row's (32 zero bytes for the first) and ``canonical`` the row's
columns as compact JSON. One chain across the tables, rather than one per
table, because a single ``seq`` orders writes from every scheduler on the
home; each write holds the file's write lock (``BEGIN IMMEDIATE``) from
reading the head to inserting its link, so two processes cannot fork it.

``verify`` walks the chain: a changed row, a changed or missing link, a
deleted row, or a row with no link (inserted behind the kernel's back) is
reported as the first broken place. Rows written before the chain existed
are linked once by the migration that creates it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any, Sequence

from ..core.checking import ChainBroken as ChainBroken, ChainIntact as ChainIntact  # (there: views import them
# without this room's package)

GENESIS = bytes(32)
TABLES = ("automation_events", "automation_claims", "automation_runs", "automation_run_agents", "inbox_events")
SCHEMA = """
CREATE TABLE IF NOT EXISTS automation_chain (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, row INTEGER NOT NULL, hash BLOB NOT NULL,
    UNIQUE (tbl, row));
CREATE TRIGGER IF NOT EXISTS automation_chain_no_update BEFORE UPDATE ON automation_chain
BEGIN SELECT RAISE(ABORT, 'automation records are append-only: automation_chain rows cannot be updated'); END;
CREATE TRIGGER IF NOT EXISTS automation_chain_no_delete BEFORE DELETE ON automation_chain
BEGIN SELECT RAISE(ABORT, 'automation records are append-only: automation_chain rows cannot be deleted'); END;
"""



def canonical(values: Sequence[Any]) -> bytes:
    return json.dumps(list(values), separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode("ascii")


def link(prev: bytes, table: str, row: int, values: Sequence[Any]) -> bytes:
    return hashlib.sha256(prev + f"{table}\n{row}\n".encode("ascii") + canonical(values)).digest()


def _row(db: sqlite3.Connection, table: str, row: int) -> tuple[Any, ...] | None:
    found = db.execute(f"SELECT * FROM {table} WHERE rowid=?", (row,)).fetchone()  # noqa: S608 - TABLES only
    return None if found is None else tuple(found)


def append(db: sqlite3.Connection, table: str, row: int) -> None:
    """Link the row just inserted (inside the writer's ``BEGIN IMMEDIATE``)."""
    head = db.execute("SELECT hash FROM automation_chain ORDER BY seq DESC LIMIT 1").fetchone()
    values = _row(db, table, row)
    assert values is not None and table in TABLES
    db.execute("INSERT INTO automation_chain(tbl, row, hash) VALUES (?,?,?)",
               (table, row, link(head[0] if head else GENESIS, table, row, values)))


def row_problem(db: sqlite3.Connection, table: str, row: int) -> str | None:
    """Why one row no longer matches its own link (against its predecessor's stored hash), or None: the
    check before a run uses its definition, cheap at any history length."""
    found = db.execute("SELECT seq, hash FROM automation_chain WHERE tbl = ? AND row = ?", (table, row)).fetchone()
    if found is None:
        return f"{table} row {row} was added outside Agentdesk (no chain link covers it)"
    prev = db.execute("SELECT hash FROM automation_chain WHERE seq < ? ORDER BY seq DESC LIMIT 1",
                      (found[0],)).fetchone()
    values = _row(db, table, row)
    try:
        expected = link(bytes(prev[0]) if prev else GENESIS, table, row, values) if values is not None else b""
    except (TypeError, ValueError):
        expected = b""
    if bytes(found[1]) != expected:
        return f"{table} row {row} or its chain link #{found[0]} was changed after it was written"
    return None


def adopt_unlinked(db: sqlite3.Connection) -> int:
    """The migration that starts the chain: link every row written before it, table by table."""
    linked = 0
    for table in TABLES:
        for (row,) in db.execute(f"SELECT rowid FROM {table} ORDER BY rowid").fetchall():  # noqa: S608
            append(db, table, int(row))
            linked += 1
    return linked


def verify(db: sqlite3.Connection) -> ChainBroken | ChainIntact:
    """Walk the chain in order, then look for rows no link covers."""
    prev = GENESIS
    count = 0
    linked: dict[str, set[int]] = {t: set() for t in TABLES}
    for seq, table, row, stored in db.execute("SELECT seq, tbl, row, hash FROM automation_chain ORDER BY seq"):
        if table not in TABLES:
            return ChainBroken("automation_chain", int(seq), f"link #{seq} names an unknown table {table!r}")
        values = _row(db, table, int(row))
        if values is None:
            return ChainBroken(table, int(row), f"the row was deleted (chain link #{seq})")
        if bytes(stored) != link(prev, table, int(row), values):
            return ChainBroken(table, int(row), f"the row or its chain link #{seq} was changed after it was written")
        linked[table].add(int(row))
        prev = bytes(stored)
        count += 1
    for table in TABLES:
        for (row,) in db.execute(f"SELECT rowid FROM {table} ORDER BY rowid"):  # noqa: S608
            if int(row) not in linked[table]:
                return ChainBroken(table, int(row), "the row was added outside Agentdesk (no chain link covers it)")
    return ChainIntact(count)


def verify_file(path: str) -> ChainBroken | ChainIntact:
    """``verify`` on a ledger file, opened read-only (a check writes nothing). A file with automation rows
    but no chain is broken: the chain is made whenever a kernel opens the file, so it was removed."""
    db = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True, timeout=10.0)
    try:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "automation_chain" in names:
            return verify(db)
        for table in TABLES:
            if table in names and db.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone():  # noqa: S608
                return ChainBroken(table, 1, "the automation records have no hash chain (it was removed)")
        return ChainIntact(0)
    finally:
        db.close()
