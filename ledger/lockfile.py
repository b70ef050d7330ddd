"""A lock file beside the database, held while a ledger is created or migrated.

Two processes opening a brand-new home at the same moment both switch the
new file to WAL: that switch needs an exclusive lock, and when both already
hold a shared one SQLite answers "database is locked" at once instead of
waiting (its busy timeout does not apply to a lock upgrade that could
deadlock). Measured 2026-12: 11 failures in 600 opens (200 rounds of 3
processes forked together). A migration that computes (the hash chain of a
big ledger) must not race another process either. So opening takes an
exclusive ``flock`` on ``<db>-lock`` until the schema is current; the other
process simply waits its turn. Where there is no ``fcntl`` (Windows) or the
folder is read-only, opening goes on without it, as before.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - not on the platforms we ship
    fcntl = None  # type: ignore[assignment]


def lock_path(db_path: str) -> str:
    return db_path + "-lock"


@contextmanager
def held(db_path: str) -> Iterator[None]:
    """Hold the creation lock of ``db_path`` (blocking until it is free)."""
    fd = -1
    if fcntl is not None:
        try:
            fd = os.open(lock_path(db_path), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            fd = -1
    try:
        if fd >= 0:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        if fd >= 0:
            os.close(fd)  # closing releases the lock
