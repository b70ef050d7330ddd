"""The snapshot index kept on disk between sessions, in its own small SQLite file.

The index (path → size, mtime, ctime, inode, mode, hash) is a cache: losing it
costs one full re-read of the workspace, never correctness, so it lives
outside the append-only ledger, where rows may be updated and deleted freely.
One file per (workspace, ledger) pair: the hashes it holds promise that their
contents are in *that* ledger's blob store. Each save writes only the rows
that changed since the last one.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
    rel TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL, mode INTEGER NOT NULL, digest TEXT NOT NULL, stored INTEGER NOT NULL,
    racy INTEGER NOT NULL);
"""
_VERSION = "1"


@dataclass(frozen=True, slots=True)
class FileState:
    """What the index knows of one regular file.

    ``stored`` is False when the contents were too large to keep in the ledger
    (hash only). ``racy`` marks a file modified so close to when it was read
    that a later same-size change could keep the same mtime; it is re-read at
    the next snapshot instead of trusted.
    """

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    mode: int
    digest: str
    stored: bool
    racy: bool = False
    # What a later stat must match for this state to be trusted without a read (None when racy).
    key: tuple[int, int, int, int] | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        if not self.racy:
            object.__setattr__(self, "key", (self.size, self.mtime_ns, self.ctime_ns, self.inode))


class SnapshotCache:
    """Loads and saves one workspace's index; thread-safe."""

    def __init__(self, folder: Path, root: Path, ledger_path: str) -> None:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # in the home: owner-only (kernel.config.private)
        key = hashlib.sha256(f"{root}\0{Path(ledger_path).resolve()}".encode()).hexdigest()[:16]
        self.path = folder / f"snapshot-{key}.db"
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
        expected = {"version": _VERSION, "root": str(root), "ledger": str(Path(ledger_path).resolve())}
        if meta != expected:  # another layout or another pairing: start over
            self._db.execute("BEGIN")
            self._db.execute("DELETE FROM files")
            self._db.execute("DELETE FROM meta")
            self._db.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", expected.items())
            self._db.execute("COMMIT")

    def load(self) -> dict[str, FileState]:
        with self._lock:
            rows = self._db.execute("SELECT rel, size, mtime_ns, ctime_ns, inode, mode, digest, stored, racy "
                                    "FROM files").fetchall()
        return {r[0]: FileState(r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), bool(r[8])) for r in rows}

    def save(self, upserts: Mapping[str, FileState], deletes: Iterable[str]) -> None:
        """Write the rows that changed (in one transaction)."""
        rows = [(rel, s.size, s.mtime_ns, s.ctime_ns, s.inode, s.mode, s.digest, int(s.stored), int(s.racy))
                for rel, s in upserts.items()]
        gone = [(rel,) for rel in deletes]
        if not rows and not gone:
            return
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
                self._db.executemany("DELETE FROM files WHERE rel = ?", gone)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()
