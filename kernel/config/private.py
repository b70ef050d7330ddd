"""A home is its owner's alone: the folder 0700, its files 0600.

The home holds the ledger (every conversation, and the bytes of every file a
change touched), the keys, the accounts and the kernel's log. Until issue 23
``ledger.db`` and its WAL were 0644 in a 0755 home: any local user could read
them. So the home is made 0700 whatever the umask (``mkdir``'s mode is cut by
the umask; an explicit ``chmod`` is not), every file the kernel writes there is
born 0600 (``write_private``, ``open_private_log``), and a home made before
is repaired when a kernel starts on it or the command line opens it
(``repair_home``). The repair touches only the home folder and the files
Agentdesk keeps at its top: a home pointed at a folder that holds other
things (``AGENTDESK_HOME=~``) keeps their modes.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600

# the files Agentdesk keeps at the top of a home (the ledger's start with "ledger.": -wal, -shm, -lock, .verified)
HOME_FILES = frozenset({"settings.json", "keys.json", "accounts.json", "mcp.json", "mcp_keys.json", "skills.json",
                        "keyring.json", "kernel.log", "kernel.lock"})
HOME_FOLDERS = frozenset({"snapshots", "logs", "skills"})
LEDGER_PREFIX = "ledger."


def make_home(root: Path) -> None:
    """Create ``root`` (and its parents) if needed; the home is 0700 (a umask only takes bits away from
    ``mkdir``'s mode; an existing home loses its group and other bits)."""
    root.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    _owner_only(root, folder=True)


def repair_home(root: Path) -> list[Path]:
    """Take group and other access off an existing home and the files Agentdesk keeps in it; returns what
    was changed (nothing when ``root`` does not exist: opening a home never creates one here)."""
    changed: list[Path] = []
    if _owner_only(root, folder=True):
        changed.append(root)
    try:
        names = os.listdir(root)
    except OSError:
        return changed
    for name in names:
        ours = name in HOME_FILES or name.startswith(LEDGER_PREFIX) or name in HOME_FOLDERS
        if ours and _owner_only(root / name, folder=name in HOME_FOLDERS):
            changed.append(root / name)
    return changed


def _owner_only(path: Path, folder: bool) -> bool:
    """Take group and other bits off ``path`` (its owner's bits stay) when it is ours and a folder (or a
    regular file) reached without a symlink; True when its mode was changed."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags | (os.O_DIRECTORY if folder else 0))
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        kind = stat.S_ISDIR if folder else stat.S_ISREG
        if not kind(st.st_mode) or st.st_uid != os.getuid() or not st.st_mode & 0o077:
            return False
        os.fchmod(fd, stat.S_IMODE(st.st_mode) & 0o700)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def write_private(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically, the file 0600 from its first byte (umask or not)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        os.fchmod(fh.fileno(), FILE_MODE)  # a leftover .tmp keeps its old mode through O_CREAT
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def open_private_log(path: Path) -> int:
    """A file descriptor appending to ``path``, which is 0600 (created so, or made so)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    os.fchmod(fd, FILE_MODE)
    return fd
