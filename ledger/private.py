"""A ledger file is its owner's alone (0600), and so are its WAL and shared-memory files.

A ledger holds every conversation and the bytes of every file change. SQLite
gives a WAL and a ``-shm`` file the database file's own mode, so the database
is created 0600 before SQLite opens it (a umask cannot widen an ``open`` mode,
and ``fchmod`` sets it exactly); a ledger made 0644 before issue 23 is narrowed
when it is opened, its ``-wal`` and ``-shm`` with it (only files this user owns,
never through a symlink).
"""

from __future__ import annotations

import os
import stat

FILE_MODE = 0o600
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def create_private(path: str) -> None:
    """Create ``path`` empty and 0600 when it does not exist (SQLite then fills it)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                     FILE_MODE)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)


def narrow(path: str) -> None:
    """Take group and other access off the database and its ``-wal`` and ``-shm`` files, where this user
    owns them (a read-only ledger someone else owns is left as it is)."""
    for name in (path, path + "-wal", path + "-shm"):
        try:
            fd = os.open(name, _FLAGS)
        except OSError:
            continue
        try:
            st = os.fstat(fd)
            if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and st.st_mode & 0o077:
                os.fchmod(fd, stat.S_IMODE(st.st_mode) & 0o700)
        except OSError:
            pass
        finally:
            os.close(fd)
