"""Stage folders (an overlay's upper and work layers) kept per workspace, reused, and swept when stale.

Making and removing a stage for every command cost about 30 ms on a loaded
machine (measured 2026-12-01, mostly ``rmtree`` of overlayfs's ``work/work``),
so a workspace keeps its stage: after a command's upper layer is applied, the
used ``upper`` and ``work`` folders are renamed aside (two renames, whatever
they hold) and fresh empty ones made; a background thread removes what was
set aside. The ``work`` folder must be fresh too: a ``volatile`` overlay
leaves ``work/work/incompat/volatile``, and the kernel refuses to mount over
it again.

Each stage holds an open, ``flock``-ed ``lock`` file for as long as a process
may use it, so a stage whose lock can be taken belongs to a process that is
gone (a kernel killed mid-command; its command died with it, and what it did
never reached the workspace, like a transaction never committed). Such stages
are removed the first time this process stages beside that workspace folder
(in the background), never following a link and never outside
``.agentdesk-overlay/`` (``kernel.sandbox.safe_remove``). A stage is built under a
``.tmp-`` name and renamed into place only once its lock is held, so a stage
being made is never mistaken for a stale one; folders without a lock (the
overlay probe's, or those of an older version) are stale after a day.
"""

from __future__ import annotations

import fcntl
import hashlib
import itertools
import os
import queue
import stat
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .safe_remove import remove_at, remove_tree
from .overlay import STAGE_DIR, Stage, stage_parent

LOCK = "lock"
TMP_PREFIX = ".tmp-"
ASIDE = "aside-"               # used layers waiting for the background removal
UNLOCKED_STALE_S = 24 * 3600.0  # a folder with no lock file is stale after this long


@dataclass
class _Held:
    stage: Stage
    lock_fd: int
    root: Path


class StagePool:
    """Stages of this process, per workspace root; thread-safe. ``close()`` removes them."""

    def __init__(self, *, now: Callable[[], float] = time.time) -> None:
        self._now = now
        self._free: dict[Path, list[_Held]] = {}
        self._held: dict[Path, _Held] = {}       # by stage folder: every stage this pool made
        self._busy: set[Path] = set()           # stage folders handed out and not yet released
        self._swept: set[Path] = set()
        self._lock = threading.Lock()
        self._count = itertools.count()
        self._jobs: queue.Queue[Callable[[], object]] = queue.Queue()
        self._worker: threading.Thread | None = None

    def acquire(self, root: Path) -> Stage:
        """An empty stage for one command in ``root`` (blocking, cheap once made); OSError if none can be made."""
        parent = stage_parent(root)
        with self._lock:
            free = self._free.get(root)
            if free:
                held = free.pop()
                self._busy.add(held.stage.folder)
                return held.stage
            first = parent not in self._swept
            self._swept.add(parent)
        held = _make(root, parent)
        with self._lock:
            self._held[held.stage.folder] = held
            self._busy.add(held.stage.folder)
        if first:
            self._later(lambda: sweep_stale(parent, self._now()))
        return held.stage

    def release(self, stage: Stage) -> None:
        """Empty ``stage`` for the next command: its layers go aside at once and are removed in the background."""
        with self._lock:
            held = self._held.get(stage.folder)
            if held is None or stage.folder not in self._busy:
                return
            self._busy.discard(stage.folder)
        aside = stage.folder / f"{ASIDE}{next(self._count)}"
        try:
            os.mkdir(aside, 0o700)
            os.rename(stage.upper, aside / "upper")
            os.rename(stage.work, aside / "work")
            os.mkdir(stage.upper, 0o755)
            os.mkdir(stage.work, 0o700)
        except OSError:  # cannot reset it: drop this stage, the next command makes another
            with self._lock:
                self._held.pop(stage.folder, None)
            self._later(lambda: _discard(held))
            return
        self._later(lambda: remove_tree(aside))
        with self._lock:
            self._free.setdefault(held.root, []).append(held)

    def drain(self) -> None:
        """Wait until the background removals queued so far are done."""
        self._jobs.join()

    def close(self) -> None:
        """Remove every stage of this pool (blocking); stages in use are the caller's to stop first."""
        with self._lock:
            held, self._held, self._free = list(self._held.values()), {}, {}
        self.drain()
        for one in held:
            _discard(one)

    def _later(self, job: Callable[[], object]) -> None:
        self._jobs.put(job)
        with self._lock:
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._work, name="agentdesk-stages", daemon=True)
                self._worker.start()

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            try:
                job()
            except Exception:  # noqa: BLE001 - a removal that fails leaves a folder the next sweep retries
                pass
            finally:
                self._jobs.task_done()


def _make(root: Path, parent: Path) -> _Held:
    """A new stage beside ``root``: built under a .tmp- name, locked, then renamed into place."""
    parent.mkdir(mode=0o700, exist_ok=True)
    st = os.lstat(parent)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise OSError(f"{parent} is not a folder of this user")
    tag = hashlib.sha256(os.fsencode(str(root))).hexdigest()[:8]
    building = Path(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=parent))
    fd = os.open(building / LOCK, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.mkdir(building / "upper", 0o755)
        os.mkdir(building / "work", 0o700)
        folder = Path(tempfile.mkdtemp(prefix=f"{root.name[:40]}-{tag}-", dir=parent))
        os.rename(building, folder)  # over the empty folder just made: the name is ours alone
    except BaseException:
        os.close(fd)
        remove_tree(building)
        raise
    return _Held(Stage(folder, folder / "upper", folder / "work"), fd, root)


def _discard(held: _Held) -> None:
    remove_tree(held.stage.folder)
    os.close(held.lock_fd)
    try:
        held.stage.folder.parent.rmdir()  # the last stage beside this workspace folder
    except OSError:
        pass


def sweep_stale(parent: Path, now: float) -> list[str]:
    """Remove the stale stages in ``parent`` (a ``.agentdesk-overlay`` folder); the names removed."""
    if parent.name != STAGE_DIR:
        raise ValueError(f"not a stage folder: {parent}")
    try:
        parent_fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return []
    removed = []
    try:
        with os.scandir(parent_fd) as it:
            names = [entry.name for entry in it]
        for name in names:
            stale, lock_fd = _stale(parent_fd, name, now)
            try:
                if stale and remove_at(parent_fd, name):
                    removed.append(name)
            finally:
                if lock_fd is not None:
                    os.close(lock_fd)
    finally:
        os.close(parent_fd)
    return removed


def _stale(parent_fd: int, name: str, now: float) -> tuple[bool, int | None]:
    """A link or file (never ours to keep), a stage whose lock no process holds, or an old lock-less folder.

    A stage found unlocked comes back with its lock taken (the descriptor), so
    no other process starts using it while it is removed."""
    try:
        st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except OSError:
        return False, None
    if not stat.S_ISDIR(st.st_mode):
        return True, None
    old = now - st.st_mtime > UNLOCKED_STALE_S
    if name.startswith(TMP_PREFIX):
        return old, None
    try:
        folder_fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent_fd)
    except OSError:
        return old, None
    try:
        lock_fd = os.open(LOCK, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder_fd)
    except OSError:
        return old, None
    finally:
        os.close(folder_fd)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(lock_fd)
        return False, None  # held: a live process's stage
    return True, lock_fd
