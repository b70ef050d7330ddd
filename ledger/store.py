"""The ledger: one append-only SQLite file of typed entries and content blobs.

Every write is an INSERT; triggers refuse UPDATE, DELETE and an INSERT over
an existing seq, so history can only grow. Each entry also carries a hash
chained over its predecessor's (see ledger.chain), computed in the same
write transaction as the insert, so a history changed behind the triggers'
back is caught by ``verify_chain`` and ``check_at_start`` (ledger.integrity).
File changes are recorded before they land (see ``write_file``), which keeps
undo correct across a crash. This module is the writing side; the queries
(ledger.queries), the diff renderer (ledger.diff) and undo's planning and
landing (ledger.undo) live apart and only read, or append through
``append_caused``; nothing they hold imports this module back.

The ledger is safe to share between threads of one process (one lock) and
between processes (SQLite WAL with a busy timeout; every write transaction
is BEGIN IMMEDIATE, so the predecessor hash read inside it is still the
newest when the row lands and the chain never forks). Creating and
migrating a ledger happen under a lock file (ledger.lockfile).
"""

from __future__ import annotations

import os
import random
import sqlite3
import stat
import threading
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

from . import blobs, files, integrity, lockfile, private
from .actors import USER
from .chain import CHAIN_COLUMNS, GENESIS, link, stored_values
from .diff import render as render_diff
from .entries import COLUMN_FIELDS, Entry, FileChange, stamped, to_row
from .errors import LedgerUnavailable
from .integrity import Broken, Integrity, Intact

AUTOMATION_CHAIN = "automations"  # the kernel's automation tables in this file keep a chain (and a head) of their own
from .migrations import migrate
from .redaction import Redactor, redacted
from .queries import Queries
from .undo import UndoReport, undo as undo_after

Clock = Callable[[], float]
_COLUMNS = "seq, ts, actor, kind, version, " + ", ".join(COLUMN_FIELDS) + ", body"
_KNOWN_BLOBS_MAX = 4096
_HEAD_SQL = "SELECT seq, hash FROM entries ORDER BY seq DESC LIMIT 1"
assert CHAIN_COLUMNS == ("seq", "ts", "actor", "kind", "version", *COLUMN_FIELDS, "body")


class Ledger(Queries):
    """An open ledger file: appending, blobs, file changes and chain checks, with the queries of
    ``Queries`` on the same connection. Close it when done (it is also a context manager)."""

    def __init__(self, path: str | os.PathLike[str], *, clock: Clock = time.time, create: bool = True,
                 redactor: Redactor | None = None, _schema_upto: int | None = None) -> None:
        self.path = str(path)
        self._clock = clock
        self._redactor = redactor  # every entry's text passes it before the row is written (ledger.redaction)
        self._lock = threading.RLock()
        self._listeners: list[Callable[[Entry], None]] = []
        self._known_blobs: set[str] = set()  # blob names seen stored by this object (blobs are never deleted)
        self._head: tuple[int, bytes] | None = None  # (seq, hash) of the newest row this object wrote
        if not create and not os.path.exists(self.path):
            raise LedgerUnavailable(self.path, "no ledger there yet")
        try:
            Path(self.path).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with lockfile.held(self.path):  # creation and migration wait for each other
                new = not os.path.exists(self.path) or os.path.getsize(self.path) == 0
                if self.path not in ("", ":memory:"):  # 0600, its WAL and -shm too (ledger.private)
                    private.create_private(self.path)
                    private.narrow(self.path)
                self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10.0)
                self._db.row_factory = sqlite3.Row
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                migrate(self._db, self.path, clock(), upto=_schema_upto)
                if new:  # a head recorded for a ledger that was deleted says nothing about this one
                    self.head_path.unlink(missing_ok=True)
            self._columns, self._stored_fields, self._insert_sql, self._chained = _statements(self._db)
        except sqlite3.DatabaseError as exc:
            raise LedgerUnavailable(self.path, str(exc)) from exc
        except OSError as exc:
            raise LedgerUnavailable(self.path, exc.strerror or str(exc)) from exc

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection, for checks and tests; never write through it."""
        return self._db

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction, holding the file's write lock from its start (see the module doc)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                self._head = None  # it may name a row that was rolled back
                raise
            self._db.execute("COMMIT")

    # ---- appending -------------------------------------------------------

    def _insert(self, db: sqlite3.Connection, entry: Entry, *, in_tx: bool = True) -> Entry:
        """Insert ``entry`` right after the newest row, chained to it.

        The newest row this object wrote is remembered, so the usual append is
        one INSERT. The ``entries_in_order`` trigger refuses any seq but the
        next one, so if another process appended meanwhile the INSERT fails and
        is made again after reading the real newest row, under the write lock:
        inside the caller's transaction (``in_tx``), or in one of its own.
        """
        ts = entry.ts or self._clock()
        if self._redactor is not None:
            entry = redacted(entry, self._redactor)
        columns, body = to_row(entry)
        fields = (entry.actor, entry.KIND, entry.VERSION, *[columns.get(name) for name in self._stored_fields], body)
        head = self._head
        if head is not None:
            try:
                return self._insert_after(db, head, entry, ts, fields)
            except sqlite3.IntegrityError:  # someone else appended (or a real error, which recurs below)
                self._head = None
        if in_tx:
            return self._insert_after(db, self._read_head(db), entry, ts, fields)
        with self._tx() as tx:
            return self._insert_after(tx, self._read_head(tx), entry, ts, fields)

    def _read_head(self, db: sqlite3.Connection) -> tuple[int, bytes]:
        row = db.execute(_HEAD_SQL if self._chained else _HEAD_SQL.replace("hash", "NULL")).fetchone()
        if row is None:
            return 0, GENESIS
        return row[0], row[1] if isinstance(row[1], bytes) else GENESIS

    def _insert_after(self, db: sqlite3.Connection, head: tuple[int, bytes], entry: Entry, ts: float,
                      fields: tuple[object, ...]) -> Entry:
        seq = head[0] + 1
        if self._chained:
            values = stored_values((seq, ts, *fields))
            digest = link(head[1], values)
            db.execute(self._insert_sql, (*values, digest))
            self._head = (seq, digest)
        else:  # an older schema, opened on purpose (tests)
            db.execute(self._insert_sql, (seq, ts, *fields))
            values = (seq, ts)
        return stamped(entry, seq, values[1])

    def redact_with(self, redactor: Redactor | None) -> None:
        """Run ``redactor`` over the text of every entry appended from now on (None: stop)."""
        self._redactor = redactor

    @property
    def redactor(self) -> Redactor | None:
        return self._redactor

    def listen(self, fn: Callable[[Entry], None]) -> Callable[[], None]:
        """Call ``fn`` with every entry this object appends, once committed, on the appending
        thread; returns the function that stops it. (Other processes' entries are not seen.)"""
        self._listeners.append(fn)
        return lambda: self._listeners.remove(fn) if fn in self._listeners else None

    def _announce(self, entries: Sequence[Entry]) -> None:
        for fn in tuple(self._listeners):
            for entry in entries:
                fn(entry)

    def append(self, entry: Entry) -> Entry:
        """Store one entry in its own transaction; returns it with seq and ts set."""
        with self._lock:  # one INSERT in autocommit mode is its own transaction
            stored = self._insert(self._db, entry, in_tx=False)
        self._announce((stored,))
        return stored

    def append_many(self, entries: Sequence[Entry]) -> list[Entry]:
        """Store several entries in one transaction, in order."""
        with self._tx() as db:
            stored = [self._insert(db, e) for e in entries]
        self._announce(stored)
        return stored

    def append_numbered(self, make: Callable[[int], Entry]) -> Entry:
        """Append the entry ``make(seq)`` builds knowing its own seq.

        Used to mint ids that are unique across every process sharing the
        file (an agent's id comes from its spawn entry's seq).
        """
        with self._tx() as db:
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM entries").fetchone()[0]
            stored = self._insert(db, make(seq))
        self._announce((stored,))
        return stored

    # ---- blobs -----------------------------------------------------------

    def put_blob(self, data: bytes) -> str:
        with self._tx() as db:
            return blobs.put(db, data)

    def put_blobs(self, contents: Mapping[str, bytes]) -> None:
        """Store several contents (name -> bytes, the name their sha256) in one transaction."""
        fresh = [name for name in contents if name not in self._known_blobs]
        if not fresh:
            return
        with self._tx() as db:
            for name in fresh:
                blobs.put(db, contents[name], name)
        self._remember_blobs(fresh)

    def append_with_blobs(self, entries: Sequence[Entry], contents: Mapping[str, bytes]) -> list[Entry]:
        """One transaction: store ``contents`` (name -> bytes), then append ``entries`` that name them."""
        fresh = [name for name in contents if name not in self._known_blobs]
        with self._tx() as db:
            for name in fresh:
                blobs.put(db, contents[name], name)
            stored = [self._insert(db, e) for e in entries]
        self._remember_blobs(fresh)
        self._announce(stored)
        return stored

    # ---- tamper evidence ---------------------------------------------------

    @property
    def own_files(self) -> tuple[str, ...]:
        """Every file this ledger keeps beside it: the database, SQLite's, the lock, the heads (its own and the
        automation records' chain's, kernel/automations/chain_start)."""
        return (self.path, *(self.path + s for s in ("-wal", "-shm", "-journal")), lockfile.lock_path(self.path),
                str(self.head_path), str(integrity.head_path(self.path, AUTOMATION_CHAIN)))

    @property
    def head_path(self) -> Path:
        """Where the last verified head is recorded (beside the database)."""
        return integrity.head_path(self.path)

    def verify_chain(self) -> Integrity:
        """The full check: every entry's hash, every blob, and the head a past check recorded."""
        return self._checked(lambda db, head: integrity.full(db, head))

    def check_at_start(self, *, spot_checks: int = integrity.SPOT_CHECKS, rng: random.Random | None = None) -> Integrity:
        """The quick check: the recorded head still holds, newer entries chain from it, a few older
        ones are spot-checked. Fast however long the history is (see ledger.integrity)."""
        return self._checked(lambda db, head: integrity.since(db, head, spot_checks=spot_checks, rng=rng))

    def _checked(self, check: Callable[[sqlite3.Connection, integrity.Head | None], Integrity]) -> Integrity:
        """Run ``check`` on one consistent snapshot; record the new head when it is intact."""
        recorded = integrity.read_head(self.head_path)
        with self._lock:
            self._db.execute("BEGIN")  # one read snapshot for every query of the check
            try:
                result = check(self._db, recorded)
            except sqlite3.DatabaseError as exc:
                result = Broken(None, "altered", f"the database is damaged: {exc}")
            finally:
                self._db.execute("ROLLBACK")
        head = result.head if isinstance(result, Intact) else None
        if head is not None and (recorded is None or head.seq > recorded.seq):
            try:
                integrity.write_head(self.head_path, head)
            except OSError:
                pass  # a read-only home: the check still holds, it is just not remembered
        return result

    def diff(self, seq: int, context: int = 3) -> str:
        """A unified diff of one file change (see ledger.diff)."""
        return render_diff(self, seq, context)

    # ---- file changes ------------------------------------------------------

    def write_file(self, *, actor: str, path: str | os.PathLike[str], content: bytes | blobs.Opened | None,
                   cause: int | None, max_blob: int | None = None, resolved: bool = False,
                   current: tuple[bytes | blobs.Opened | None, int | None] | None = None,
                   place: files.Place | None = None) -> FileChange:
        """Record a change to ``path`` and then land it atomically; returns the entry.

        ``content`` None deletes the file; ``blobs.Opened`` copies an open
        file in chunks (a move). New contents are staged first
        (temporary file written and fsynced), so a file that cannot be written
        is not recorded; the entry is committed next, and only then does the
        rename land the change, so a crash in between leaves a change that
        undo sees never landed and treats as already reversed. ``resolved``:
        the caller already resolved ``path``; ``current``: the (bytes, or an
        open file to read in chunks, and mode) the caller found there;
        ``place``: the file as a name in a folder the caller holds open, which
        every step goes through instead of ``path`` (``path`` is recorded).
        """
        target = Path(path) if resolved else files.absolute(path)
        if current is None and place is not None:
            with _opened(place) as found:
                return self.write_file(actor=actor, path=target, content=content, cause=cause,
                                       max_blob=max_blob, resolved=True, current=found, place=place)
        old, mode = files.read(target) if current is None else current
        if content is None:
            entry = self._record(actor, str(target), old, None, cause, mode, max_blob)
            files.land(target, None, place=place)
            return entry
        staged = files.stage(target, content, mode, place)
        try:
            entry = self._record(actor, str(target), old, content, cause, mode, max_blob)
        except BaseException:
            files.discard(staged, place)
            raise
        files.rename(staged, target, place)
        return entry

    def _record(self, actor: str, path: str, before: bytes | blobs.Opened | None, after: bytes | blobs.Opened | None,
                cause: int | None, mode: int | None, max_blob: int | None) -> FileChange:
        stored = True
        hashes: list[str | None] = []
        fresh: list[str] = []
        with self._tx() as db:
            for data in (before, after):
                if data is None:
                    hashes.append(None)
                    continue
                if isinstance(data, blobs.Opened):  # a file's contents, kept in bounded memory
                    keep = max_blob is None or data.size <= max_blob
                    name = blobs.put_fd(db, data.fd) if keep else blobs.digest_fd(data.fd)
                    hashes.append(name)
                    stored = stored and keep
                    continue
                name = blobs.digest(data)
                hashes.append(name)
                if max_blob is not None and len(data) > max_blob:
                    stored = False
                elif name not in self._known_blobs:
                    blobs.put(db, data, name)
                    fresh.append(name)
            entry = FileChange(actor=actor, path=path, before=hashes[0], after=hashes[1],
                               cause=cause, mode=mode, stored=stored)
            recorded = self._insert(db, entry)
        self._remember_blobs(fresh)
        self._announce((recorded,))
        return recorded  # type: ignore[return-value]

    def _remember_blobs(self, names: Sequence[str]) -> None:
        """Note blobs known to be stored (never deleted), so recording skips them next time."""
        if len(self._known_blobs) + len(names) > _KNOWN_BLOBS_MAX:
            self._known_blobs.clear()
        self._known_blobs.update(names)

    # ---- undo --------------------------------------------------------------

    def undo(self, after_seq: int, *, by: str = USER, only_actor: str | None = None,
             dry_run: bool = False) -> UndoReport:
        """Reverse the file changes after ``after_seq``, newest first (see ledger.undo)."""
        return undo_after(self, after_seq, by=by, only_actor=only_actor, dry_run=dry_run)

    def append_caused(self, first: Entry, caused: Sequence[Entry]) -> list[Entry]:
        """One transaction: ``first``, then ``caused`` with their cause set to its seq (an undo and its reversals)."""
        with self._tx() as db:
            head = self._insert(db, first)
            stored = [head, *(self._insert(db, replace(e, cause=head.seq)) for e in caused)]  # type: ignore[call-arg]
        self._announce(stored)
        return stored


@contextmanager
def _opened(place: files.Place) -> Iterator[tuple[blobs.Opened | None, int | None]]:
    """What is at ``place`` now, as (open contents, mode), closed afterwards; (None, None): no file."""
    found = files.open_at(place)
    if found is None:
        yield None, None
        return
    fd, st = found
    try:
        yield blobs.Opened(fd, st.st_size), stat.S_IMODE(st.st_mode)
    finally:
        os.close(fd)


def _statements(db: sqlite3.Connection) -> tuple[str, tuple[str, ...], str, bool]:
    """The SELECT list, column-stored fields, INSERT, and whether rows are chained, for the
    entries table as this database has it.

    Normally every field has its column; a ledger opened at an older schema
    (tests build one with ``_schema_upto``) reads missing columns as NULL.
    """
    have = {row[1] for row in db.execute("PRAGMA table_info(entries)")}
    if all(name in have for name in COLUMN_FIELDS):
        stored: tuple[str, ...] = COLUMN_FIELDS
        select = _COLUMNS
    else:
        stored = tuple(name for name in COLUMN_FIELDS if name in have)
        select = "seq, ts, actor, kind, version, " + ", ".join(
            name if name in have else f"NULL AS {name}" for name in COLUMN_FIELDS) + ", body"
    chained = "hash" in have
    names = ["seq", "ts", "actor", "kind", "version", *stored, "body", *(["hash"] if chained else [])]
    insert = f"INSERT INTO entries({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
    return select, stored, insert, chained
