"""The automation chain's quick check at kernel start, as the ledger has its own (``ledger.integrity.since``).

``chain.verify`` recomputes every link: fine for ``agentdesk ledger verify``,
but a start must not grow with the history. So, like the ledger's, this check
trusts what an earlier check recorded, the *head* (the newest link's seq and
hash, kept in a file beside the database: ``ledger.db`` → ``ledger.automations-verified``):
that link must still carry that hash, the links after it must chain from it,
and ``SPOT_CHECKS`` older links are recomputed from their stored predecessors.
Two set queries then look at every row without hashing any: a row no link
covers (added with the triggers dropped) and a link whose row is gone
(deleted). What it can miss is what the ledger's check misses: an older row
changed in place that no spot check happens to pick; ``ledger verify`` walks
it all. An intact check records the new head (an unwritable home: not
remembered, the check still holds).
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from ledger import integrity
from ledger.integrity import Head, read_head, write_head
from ledger.store import AUTOMATION_CHAIN

from .chain import GENESIS, TABLES, ChainBroken, ChainIntact, _row, link, verify

SPOT_CHECKS = 32
_LINK = "SELECT seq, tbl, row, hash FROM automation_chain"


def head_path(db_path: str | Path) -> Path:
    """Where the automation chain's verified head is kept, beside the ledger's file (one of its own files,
    so a workspace scan never records it)."""
    return integrity.head_path(db_path, AUTOMATION_CHAIN)


def check(db: sqlite3.Connection, head_file: Path | None, *, spot_checks: int = SPOT_CHECKS,
          rng: random.Random | None = None) -> ChainBroken | ChainIntact:
    """The quick check on one read snapshot of ``db``; records the head when intact and newer."""
    recorded = read_head(head_file) if head_file is not None else None
    db.execute("BEGIN")
    try:
        result = since(db, recorded, spot_checks=spot_checks, rng=rng or random.Random())
        newest = db.execute(f"{_LINK} ORDER BY seq DESC LIMIT 1").fetchone()
    except sqlite3.DatabaseError as exc:
        return ChainBroken("automation_chain", 0, f"the database is damaged: {exc}")
    except (TypeError, ValueError):  # a value no row written here can hold (a blob, NaN)
        return ChainBroken("automation_chain", 0, "a row holds a value Agentdesk never writes (it was changed)")
    finally:
        db.execute("ROLLBACK")
    if isinstance(result, ChainIntact) and newest is not None and head_file is not None \
            and (recorded is None or int(newest[0]) > recorded.seq):
        try:
            write_head(head_file, Head(int(newest[0]), bytes(newest[3]).hex()))
        except OSError:
            pass
    return result


def since(db: sqlite3.Connection, recorded: Head | None, *, spot_checks: int, rng: random.Random) \
        -> ChainBroken | ChainIntact:
    """The recorded head still holds, later links chain from it, a few older ones are spot-checked,
    and every row has exactly its link. With no head recorded: the whole walk (``chain.verify``)."""
    if recorded is None:
        return verify(db)
    last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM automation_chain").fetchone()[0]
    if last < recorded.seq:
        return ChainBroken("automation_chain", last + 1,
                           f"chain links #{last + 1}–#{recorded.seq} are missing (verified up to #{recorded.seq})")
    found = db.execute(f"{_LINK} WHERE seq = ?", (recorded.seq,)).fetchone()
    if found is None or bytes(found[3]).hex() != recorded.hash:
        table, row = (str(found[1]), int(found[2])) if found is not None else ("automation_chain", recorded.seq)
        return ChainBroken(table, row, f"chain link #{recorded.seq} no longer carries the hash an earlier check "
                                       "verified (it or a row before it was changed)")
    broken = _spot_check(db, recorded.seq, spot_checks, rng) or _walk(db, recorded) or _unmatched(db)
    if broken is not None:
        return broken
    return ChainIntact(int(db.execute("SELECT COUNT(*) FROM automation_chain").fetchone()[0]))


def _walk(db: sqlite3.Connection, start: Head) -> ChainBroken | None:
    prev = bytes.fromhex(start.hash)
    for seq, table, row, stored in db.execute(f"{_LINK} WHERE seq > ? ORDER BY seq", (start.seq,)).fetchall():
        broken = _check(db, prev, int(seq), table, int(row), stored)
        if broken is not None:
            return broken
        prev = bytes(stored)
    return None


def _spot_check(db: sqlite3.Connection, upto: int, n: int, rng: random.Random) -> ChainBroken | None:
    """The link at ``upto`` and ``n`` random ones before it (all, when no more than ``n``), each against
    its predecessor's stored hash."""
    seqs = range(1, upto + 1) if upto <= n else sorted({upto, *(rng.randint(1, upto) for _ in range(n))})
    for seq in seqs:
        pair = db.execute(f"{_LINK} WHERE seq <= ? ORDER BY seq DESC LIMIT 2", (seq,)).fetchall()
        if not pair or int(pair[0][0]) != seq:
            continue  # a link missing in the middle breaks the next one's hash
        prev = GENESIS if len(pair) == 1 else bytes(pair[1][3])
        _, table, row, stored = pair[0]
        broken = _check(db, prev, seq, table, int(row), stored)
        if broken is not None:
            return broken
    return None


def _check(db: sqlite3.Connection, prev: bytes, seq: int, table: str, row: int, stored: bytes) -> ChainBroken | None:
    if table not in TABLES:
        return ChainBroken("automation_chain", seq, f"link #{seq} names an unknown table {table!r}")
    values = _row(db, table, row)
    if values is None:
        return ChainBroken(table, row, f"the row was deleted (chain link #{seq})")
    try:
        expected = link(prev, table, row, values)
    except (TypeError, ValueError):
        expected = b""
    if bytes(stored) != expected:
        return ChainBroken(table, row, f"the row or its chain link #{seq} was changed after it was written")
    return None


def _unmatched(db: sqlite3.Connection) -> ChainBroken | None:
    """A row with no link, or a link whose row is gone, in any table: two indexed set queries each."""
    for table in TABLES:
        gone = db.execute(f"SELECT seq, row FROM automation_chain WHERE tbl = ? AND row NOT IN "  # noqa: S608
                          f"(SELECT rowid FROM {table}) ORDER BY seq LIMIT 1", (table,)).fetchone()
        if gone is not None:
            return ChainBroken(table, int(gone[1]), f"the row was deleted (chain link #{gone[0]})")
        extra = db.execute(f"SELECT rowid FROM {table} WHERE rowid NOT IN "  # noqa: S608 - TABLES only
                           "(SELECT row FROM automation_chain WHERE tbl = ?) ORDER BY rowid LIMIT 1",
                           (table,)).fetchone()
        if extra is not None:
            return ChainBroken(table, int(extra[0]), "the row was added outside Agentdesk (no chain link covers it)")
    return None
