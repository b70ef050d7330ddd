"""The read side of the ledger: every query, apart from how entries are written.

Queries are served by indexes on (actor, seq), (kind, seq), (path, seq),
cause and reverts, newest first and paged by seq, so the view stays instant
however long the history gets (``page_plan`` shows the index a page uses).
``Queries`` only reads (entries and blobs); ``ledger.store.Ledger`` adds
appending, storing blobs, recording file changes and the chain checks on top
of the same connection and lock.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Any, Sequence

from . import blobs
from .entries import Entry, FileChange, from_row
from .errors import UnknownSeq

PAGE_LIMIT_MAX = 10_000
SEQ_MAX = 2**63 - 1
# the after index finds the writes of these bytes; the partial untrusted index, whether each writer was tainted
# (pinned: without statistics the planner walked every file change by kind, 10 ms at 30k entries)
TAINTED_WRITE = ("SELECT {columns} FROM entries AS w INDEXED BY entries_after WHERE w.after = ? "
                 "AND w.kind = 'fs.write' AND EXISTS (SELECT 1 FROM entries AS m WHERE m.actor = w.actor AND m.kind = 'untrusted' AND m.seq < w.seq) "
                 "ORDER BY w.seq DESC LIMIT 1")
# Pinned (CROSS JOIN keeps the order, INDEXED BY the index): the tainted actors, each one's file changes after its
# taint (covered by entries_writes), then every place those bytes were written (covered by entries_after; only
# file changes have an ``after``). Left to itself the planner walked every file change (120 ms at 100k entries).
TAINTED_PATHS = (
    "WITH t AS (SELECT actor, MIN(seq) AS since FROM entries INDEXED BY entries_untrusted WHERE kind = 'untrusted' "
    "GROUP BY actor), "
    "h AS (SELECT DISTINCT w.after FROM t CROSS JOIN entries AS w INDEXED BY entries_writes "
    "ON w.actor = t.actor AND w.seq > t.since WHERE w.kind = 'fs.write' AND w.after IS NOT NULL) "
    "SELECT DISTINCT e.path, e.after FROM h CROSS JOIN entries AS e INDEXED BY entries_after ON e.after = h.after "
    "WHERE e.path >= ? AND e.path < ? ORDER BY e.path")


class Queries:
    """Read-only queries over an open ledger file (the connection, its lock and its SELECT list)."""

    _db: sqlite3.Connection
    _lock: threading.RLock
    _columns: str

    def last_seq(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM entries").fetchone()[0])

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0])

    def count_of_actor(self, actor: str, after: int = 0, upto: int = SEQ_MAX) -> int:
        """How many entries ``actor`` has with ``after`` < seq <= ``upto`` (the (actor, seq) index, no rows read)."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM entries WHERE actor = ? AND seq > ? AND seq <= ?",
                                        (actor, after, upto)).fetchone()[0])

    def outcome_calls(self, actor: str) -> list[tuple[int, str | None]]:
        """(seq, the model's call id) of every tool outcome (``result``/``error``) of ``actor``, oldest first,
        read from the index and one JSON field, without building entries (clearing old results names them)."""
        with self._lock:
            rows = self._db.execute("SELECT seq, json_extract(body, '$.call') FROM entries WHERE actor = ? "
                                    "AND kind IN ('result', 'error') ORDER BY seq", (actor,)).fetchall()
        return [(int(seq), call if isinstance(call, str) else None) for seq, call in rows]

    def nth_last_reply(self, actor: str, n: int, after: int = 0) -> int | None:
        """The seq of ``actor``'s ``n``-th last ``ok`` request after ``after`` that was part of its conversation
        (not a compaction's summary), or None: where compaction's kept exchanges begin."""
        with self._lock:
            row = self._db.execute(
                "SELECT seq FROM entries WHERE actor = ? AND kind = 'request' AND seq > ? "
                "AND json_extract(body, '$.status') = 'ok' "
                "AND COALESCE(json_extract(body, '$.reason'), '') != 'compaction' "
                "ORDER BY seq DESC LIMIT 1 OFFSET ?", (actor, after, max(0, n - 1))).fetchone()
        return int(row[0]) if row is not None else None

    def newest_values(self, actor: str, kind: str, name: str, limit: int = PAGE_LIMIT_MAX) -> list[tuple[int, Any]]:
        """(seq, the body field ``name``: a string or number as it is, an object or list as its JSON text) of
        ``actor``'s newest ``kind`` entries, newest first, at most ``limit``, without building entries (compaction reads the user's words and its own earlier modes this way: 500
        user turns built as entries took 11 ms of CPU on a 10,000-entry record, their texts alone well under 1)."""
        if not name.isidentifier():
            raise ValueError(f"not a field name: {name!r}")
        with self._lock:
            return [(int(seq), value) for seq, value in self._db.execute(
                "SELECT seq, json_extract(body, ?) FROM entries WHERE actor = ? AND kind = ? ORDER BY seq DESC LIMIT ?",
                (f"$.{name}", actor, kind, max(0, min(limit, PAGE_LIMIT_MAX))))]

    def body_values(self, kind: str, name: str) -> list[tuple[int, Any]]:
        """(seq, the body field ``name``) of every ``kind`` entry, oldest first, without building entries
        (the outward calls' idempotency keys: 10,000 intents read in one query, not 20 pages)."""
        if not name.isidentifier():
            raise ValueError(f"not a field name: {name!r}")
        with self._lock:
            return [(seq, value) for seq, value in self._db.execute(
                "SELECT seq, json_extract(body, ?) FROM entries WHERE kind = ? ORDER BY seq", (f"$.{name}", kind))]

    def highest_number(self, kind: str, prefix: str) -> int:
        """The highest n among the actors ``<prefix><n>`` of ``kind`` entries (0 when there is none).

        Called by ``append_numbered``'s ``make``, it runs inside that write transaction, so
        ``highest_number(...) + 1`` is a dense number no other process can take too (agent ids)."""
        start = len(prefix) + 1
        with self._lock:
            row = self._db.execute(
                "SELECT MAX(CAST(SUBSTR(actor, ?) AS INTEGER)) FROM entries WHERE kind = ? "
                "AND SUBSTR(actor, 1, ?) = ? AND LENGTH(actor) > ? AND SUBSTR(actor, ?) NOT GLOB '*[^0-9]*'",
                (start, kind, len(prefix), prefix, len(prefix), start)).fetchone()
        return int(row[0] or 0)

    def get(self, seq: int) -> Entry:
        with self._lock:
            row = self._db.execute(f"SELECT {self._columns} FROM entries WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            raise UnknownSeq(seq)
        return from_row(row)

    def page(self, *, before: int | None = None, after: int | None = None, limit: int = 200,
             actor: str | None = None, kind: str | None = None, path: str | None = None) -> list[Entry]:
        """Entries newest first, with seq < before and > after, filtered; at most ``limit``.

        ``path`` is a prefix of the absolute path (a plain string prefix).
        """
        sql, args = _page_sql(self._columns, before, after, limit, actor, kind, path)
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        return [from_row(r) for r in rows]

    def scan(self, kinds: Sequence[str], after: int = 0) -> list[Entry]:
        """Every entry of these kinds with seq > ``after``, oldest first (a kernel rebuilding its agents)."""
        marks = ",".join("?" * len(kinds))
        with self._lock:
            rows = self._db.execute(f"SELECT {self._columns} FROM entries WHERE kind IN ({marks}) AND seq > ? "
                                    "ORDER BY seq", (*kinds, after)).fetchall()
        return [from_row(r) for r in rows]

    def of_actor(self, actor: str, kinds: Sequence[str], after: int = 0, upto: int = SEQ_MAX) -> list[Entry]:
        """One actor's entries of these kinds with ``after`` < seq <= ``upto``, oldest first (the (actor, seq) index)."""
        marks = ",".join("?" * len(kinds))
        with self._lock:
            rows = self._db.execute(f"SELECT {self._columns} FROM entries WHERE actor = ? AND seq > ? AND seq <= ? "
                                    f"AND kind IN ({marks}) ORDER BY seq", (actor, after, upto, *kinds)).fetchall()
        return [from_row(r) for r in rows]

    def per_actor(self, kind: str, fields: Sequence[str] = (), *, unless: tuple[str, str] | None = None
                  ) -> dict[str, tuple[int, int, float, tuple[float, ...]]]:
        """For each actor with ``kind`` entries: (first seq, last seq, last ts, sums of these numeric body
        fields), computed by SQLite without reading the entries one by one (a kernel's start). ``unless``
        (a body field and a value) leaves out the entries whose field holds that value."""
        sums = "".join(f", TOTAL(json_extract(body, '$.{name}'))" for name in fields if name.isidentifier())
        where, args = "kind = ?", [kind]
        if unless is not None and unless[0].isidentifier():
            where += f" AND json_extract(body, '$.{unless[0]}') IS NOT ?"
            args.append(unless[1])
        with self._lock:
            rows = self._db.execute(f"SELECT actor, MIN(seq), MAX(seq), MAX(ts){sums} FROM entries WHERE {where} "
                                    "GROUP BY actor", args).fetchall()
        return {r[0]: (r[1], r[2], r[3], tuple(r[4:])) for r in rows}

    def per_actor_groups(self, kind: str, keys: Sequence[str], fields: Sequence[str]
                         ) -> dict[str, list[tuple[tuple[Any, ...], tuple[float, ...]]]]:
        """For each actor with ``kind`` entries: per distinct value of these body ``keys``, the sums of
        these numeric body ``fields`` (SQLite groups them; the entries are not read one by one)."""
        names = [n for n in keys if n.isidentifier()]
        group = "".join(f", json_extract(body, '$.{name}')" for name in names)
        sums = "".join(f", TOTAL(json_extract(body, '$.{name}'))" for name in fields if name.isidentifier())
        with self._lock:
            rows = self._db.execute(f"SELECT actor{group}{sums} FROM entries WHERE kind = ? "
                                    f"GROUP BY actor{group}", (kind,)).fetchall()
        out: dict[str, list[tuple[tuple[Any, ...], tuple[float, ...]]]] = {}
        for r in rows:
            out.setdefault(r[0], []).append((tuple(r[1:1 + len(names)]), tuple(r[1 + len(names):])))
        return out

    def since(self, kind: str, ts: float) -> list[Entry]:
        """Entries of ``kind`` stamped at or after ``ts``, oldest first."""
        with self._lock:
            rows = self._db.execute(f"SELECT {self._columns} FROM entries WHERE kind = ? AND ts >= ? ORDER BY seq",
                                    (kind, ts)).fetchall()
        return [from_row(r) for r in rows]

    def page_plan(self, **filters: object) -> list[str]:
        """SQLite's query plan for ``page(**filters)``: proof that an index serves it."""
        sql, args = _page_sql(self._columns, **filters)  # type: ignore[arg-type]
        with self._lock:
            return [row[3] for row in self._db.execute("EXPLAIN QUERY PLAN " + sql, args)]

    def caused_by(self, seq: int) -> list[Entry]:
        """Entries whose cause is ``seq`` (a call's result and file changes; an undo's reversals), oldest first."""
        with self._lock:
            rows = self._db.execute(f"SELECT {self._columns} FROM entries WHERE cause = ? ORDER BY seq", (seq,)).fetchall()
        return [from_row(r) for r in rows]

    def file_changes(self, after: int, path: str | None = None) -> list[FileChange]:
        """fs.write entries with seq > after, newest first (optionally one path)."""
        if path is None:
            sql = f"SELECT {self._columns} FROM entries WHERE kind = 'fs.write' AND seq > ? ORDER BY seq DESC"
            args: tuple[object, ...] = (after,)
        else:
            sql = f"SELECT {self._columns} FROM entries WHERE path = ? AND kind = 'fs.write' AND seq > ? ORDER BY seq DESC"
            args = (path, after)
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        return [from_row(r) for r in rows]  # type: ignore[misc]

    def last_write(self, path: str) -> FileChange | None:
        """The newest file change to exactly ``path`` (one probe of the path index)."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {self._columns} FROM entries WHERE path = ? AND kind = 'fs.write' ORDER BY seq DESC LIMIT 1",
                (path,)).fetchone()
        return None if row is None else from_row(row)  # type: ignore[return-value]

    def last_change_to(self, path: str, content_hash: str | None) -> FileChange | None:
        """The newest file change that left ``path`` holding ``content_hash``."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {self._columns} FROM entries WHERE path = ? AND kind = 'fs.write' AND after IS ? "
                "ORDER BY seq DESC LIMIT 1", (path, content_hash)).fetchone()
        return None if row is None else from_row(row)  # type: ignore[return-value]

    def tainted_write(self, content_hash: str) -> FileChange | None:
        """The newest fs.write that left some file holding ``content_hash``, made by an actor who had
        read untrusted content before it (an ``untrusted`` entry of theirs precedes it), or None.
        One probe of the after index, then of the untrusted index per writer found."""
        with self._lock:
            row = self._db.execute(TAINTED_WRITE.format(columns=self._columns), (content_hash,)).fetchone()
        return None if row is None else from_row(row)  # type: ignore[return-value]

    def tainted_paths(self, prefix: str) -> list[tuple[str, str]]:
        """(path, content hash) of every fs.write under the path ``prefix`` that left a file holding bytes
        some tainted actor wrote (see ``tainted_write``): the files that may hold such bytes now."""
        low, high = prefix.rstrip("/") + "/", prefix.rstrip("/") + "0"  # "0" sorts right after "/"
        with self._lock:
            rows = self._db.execute(TAINTED_PATHS, (low, high)).fetchall()
        return [(r[0], r[1]) for r in rows]

    def places_of(self, content_hash: str) -> list[str]:
        """Every path a file change left holding ``content_hash`` (the after index, covering)."""
        with self._lock:
            return [r[0] for r in self._db.execute(
                "SELECT DISTINCT path FROM entries INDEXED BY entries_after WHERE after = ?", (content_hash,))]

    def reversals(self, seqs: Sequence[int]) -> dict[int, list[FileChange]]:
        """For each seq, the reversals that undo entries made of it, oldest first."""
        out: dict[int, list[FileChange]] = {}
        if not seqs:
            return out
        marks = ",".join("?" * len(seqs))
        with self._lock:
            rows = self._db.execute(
                f"SELECT {self._columns} FROM entries WHERE reverts IN ({marks}) ORDER BY seq", list(seqs)).fetchall()
        for row in rows:
            out.setdefault(row["reverts"], []).append(from_row(row))  # type: ignore[arg-type]
        return out

    def undone_by(self, seqs: Sequence[int]) -> dict[int, int]:
        """Which of ``seqs`` are undone now, mapped to the undo entry that undid them.

        A change is undone when a reversal of it exists that is not itself
        undone (undoing an undo is redo, which makes the change live again).
        """
        result: dict[int, int] = {}
        pending = list(seqs)
        memo: dict[int, int | None] = {}

        def undone(seq: int, depth: int = 0) -> int | None:
            if seq in memo:
                return memo[seq]
            memo[seq] = None
            for rev in reversed(self.reversals([seq]).get(seq, [])):
                if depth > 64 or undone(rev.seq, depth + 1) is None:
                    memo[seq] = rev.cause
                    break
            return memo[seq]

        direct = self.reversals(pending)
        for seq in pending:
            if seq in direct:
                by = undone(seq)
                if by is not None:
                    result[seq] = by
        return result

    # ---- blobs -----------------------------------------------------------

    def has_blob(self, digest: str) -> bool:
        with self._lock:
            return blobs.has(self._db, digest)

    def blob(self, digest: str) -> bytes:
        """The verified bytes of a blob (UnknownBlob, CorruptBlob)."""
        with self._lock:
            return blobs.get(self._db, digest)

    def verify(self, digests: list[str] | None = None) -> list[str]:
        """Hashes of damaged blobs; empty when every blob checks out."""
        with self._lock:
            return blobs.verify(self._db, digests)


def _page_sql(columns: str, before: int | None = None, after: int | None = None, limit: int = 200, actor: str | None = None,
              kind: str | None = None, path: str | None = None) -> tuple[str, list[object]]:
    # Always bound seq, so even the unfiltered newest page is a primary-key search.
    where = ["seq < ?"]
    args: list[object] = [SEQ_MAX if before is None else before]
    for column, value in (("seq >", after), ("actor =", actor), ("kind =", kind)):
        if value is not None:
            where.append(f"{column} ?")
            args.append(value)
    if path is not None:  # a prefix as a range, so the (path, seq) index serves it
        where.append("path >= ? AND path < ?")
        args += [path, path + "\U0010ffff"]
    sql = f"SELECT {columns} FROM entries WHERE " + " AND ".join(where) + " ORDER BY seq DESC LIMIT ?"
    args.append(max(0, min(limit, PAGE_LIMIT_MAX)))
    return sql, args
