"""The lock that keeps a home to one kernel, and the private folder its socket lives in.

Where the kernel listens is ``kernel.config.home.socket_path`` (the sandbox
hides that folder too): ``$AGENTDESK_HOME/kernel.sock``; a Unix socket address
holds at most 107 bytes, so for a deeper home it moves to
``$XDG_RUNTIME_DIR/agentdesk/`` (else ``/tmp/agentdesk-<uid>/``), a 0700
folder, named by a hash of the home. The lock is an ``flock`` on
``kernel.lock`` in the home, held for the kernel's life (the kernel dies, the
lock goes with it: no stale pid files to guess about); the file holds the pid
and start time for ``status``.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..config.private import make_home

try:
    import fcntl
except ImportError:  # pragma: no cover - not on the platforms we ship
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = "kernel.lock"


class HomeLocked(RuntimeError):
    """Another kernel serves this home (``pid`` when it wrote one)."""

    def __init__(self, home: Path, pid: int | None) -> None:
        self.home, self.pid = home, pid
        who = f" (pid {pid})" if pid else ""
        super().__init__(f"a kernel already runs for {home}{who}")


def private_folder(folder: Path) -> None:
    """Make ``folder`` 0700 and ours; refuse one that someone else owns or others can enter."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = folder.lstat()
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise PermissionError(f"{folder} is not a folder of this user")
    if st.st_mode & 0o077:
        os.chmod(folder, 0o700)


@dataclass(frozen=True)
class Holder:
    pid: int
    started_at: float


class HomeLock:
    """Held while this process is the home's kernel."""

    def __init__(self, home: Path) -> None:
        self.path = home / LOCK_FILE
        self._fd = -1

    def acquire(self, started_at: float) -> None:
        make_home(self.path.parent)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                held = read_holder(self.path.parent)
                raise HomeLocked(self.path.parent, held.pid if held else None) from None
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "started_at": started_at}).encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing drops the flock
            self._fd = -1


def read_holder(home: Path) -> Holder | None:
    """Who holds (or last held) the home's lock, as its file says; None when unreadable."""
    try:
        data = json.loads((home / LOCK_FILE).read_text()[:200])
        return Holder(int(data["pid"]), float(data["started_at"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def is_locked(home: Path) -> bool:
    """A kernel holds the home's lock right now."""
    if fcntl is None:
        return False
    try:
        fd = os.open(home / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False
