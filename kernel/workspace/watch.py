"""Recording what other programs change in the workspace, as ``outside``.

An editor saving a file the agent wrote, a build tool, a ``git checkout``:
none of these go through the kernel, yet undo must know about them, or it
would silently overwrite the user's work. A watchdog observer reports every
change; bursts are coalesced per path (``debounce_s``), then the snapshot
index re-reads those paths and records each change the ledger cannot explain
as an ``fs.write`` with actor ``outside`` (its before is what the index or the
ledger last knew). Changes the kernel made itself are skipped: the file then
holds exactly what the ledger's latest write to it left there. While a shell
command runs the watcher holds its paths back; the command's own snapshot
attributes them to the agent.

Watchdog calls in from its own thread and the debounce timer from another;
the index and the ledger are thread-safe. ``on_entry`` is called from those
threads too (a Qt view must hop to its own). ``flush()`` processes what is
pending right away, and ``wait_seen()`` lets a test wait for the observer to
have noticed a path without sleeping.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

if TYPE_CHECKING:
    from ledger import FileChange, Ledger

    from .snapshot import SnapshotIndex, SnapshotIndexes

_IGNORED_EVENTS = frozenset({"opened", "closed_no_write"})  # reads, including our own


class OutsideWatcher:
    """Watches one workspace and records changes made by anyone but the kernel."""

    def __init__(self, workspace_root: str | os.PathLike[str], ledger: "Ledger", index: "SnapshotIndex", *,
                 debounce_s: float = 0.3, on_entry: Callable[["FileChange"], None] | None = None) -> None:
        self.root = Path(os.path.realpath(workspace_root))
        if index.root != self.root or index.ledger is not ledger:
            raise ValueError("the snapshot index must be the one for this workspace and ledger")
        self.ledger = ledger
        self.index = index
        self.debounce_s = debounce_s
        self.on_entry = on_entry
        self._pending: dict[str, float] = {}  # rel -> monotonic time of its latest event
        self._seen: set[str] = set()
        self._cond = threading.Condition()
        self._timer: threading.Timer | None = None
        self._observer: Observer | None = None  # type: ignore[valid-type]

    # ---- life cycle ---------------------------------------------------------

    def start(self) -> None:
        """Take the baseline snapshot if there is none yet (blocking), then start observing."""
        if not self.index.has_baseline:
            self.index.scan()
        observer = Observer()
        observer.schedule(_Handler(self), str(self.root), recursive=True)
        observer.daemon = True
        observer.start()
        self._observer = observer
        self.index.add_idle_listener(self._arm)

    def stop(self) -> None:
        self.index.remove_idle_listener(self._arm)
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=10)
            self._observer = None
        with self._cond:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    def __enter__(self) -> "OutsideWatcher":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- events -------------------------------------------------------------

    def _noticed(self, path: str | bytes, is_dir: bool) -> None:
        rel = self._rel(os.fsdecode(path))
        if rel is None or self.index.ignores(rel, is_dir=is_dir):
            return
        with self._cond:
            self._pending[rel] = time.monotonic()
            self._seen.add(rel)
            self._cond.notify_all()
        self._arm()

    def _rel(self, path: str) -> str | None:
        try:
            rel = Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return None
        return None if rel in ("", ".") else rel

    def wait_seen(self, rel: str, timeout: float) -> bool:
        """Block until the observer has reported ``rel`` (or timeout); for tests and tools."""
        with self._cond:
            return self._cond.wait_for(lambda: rel in self._seen, timeout)

    def forget_seen(self) -> None:
        with self._cond:
            self._seen.clear()

    # ---- debounce and recording ----------------------------------------------

    def _arm(self) -> None:
        with self._cond:
            if self._timer is None and self._pending and self._observer is not None:
                self._timer = threading.Timer(self.debounce_s, self._on_timer)
                self._timer.daemon = True
                self._timer.start()

    def _on_timer(self) -> None:
        with self._cond:
            self._timer = None
        self._process(older_than=time.monotonic() - self.debounce_s)
        self._arm()

    def flush(self) -> list["FileChange"]:
        """Record every pending change now (unless a command is running); returns the new entries."""
        return self._process(older_than=None)

    def _process(self, older_than: float | None) -> list["FileChange"]:
        if self.index.busy:
            return []  # the command's snapshot will account for these; retried when it ends
        with self._cond:
            due = [rel for rel, at in self._pending.items() if older_than is None or at <= older_than]
            for rel in due:
                del self._pending[rel]
        if not due:
            return []
        entries = self.index.refresh(due)
        if self.on_entry is not None:
            for entry in entries:
                self.on_entry(entry)
        return entries


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: OutsideWatcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in _IGNORED_EVENTS:
            return
        if event.is_directory and event.event_type in ("modified", "closed"):
            return  # a folder's own mtime; its files report themselves
        self.watcher._noticed(event.src_path, event.is_directory)
        dest = getattr(event, "dest_path", "")
        if dest:
            self.watcher._noticed(dest, event.is_directory)


class OutsideWatchers:
    """One watcher per workspace root, all bound to one ledger and its snapshot indexes (the
    kernel watches each workspace an agent works in, and stops them all when it closes)."""

    def __init__(self, ledger: "Ledger", snapshots: "SnapshotIndexes") -> None:
        self.ledger = ledger
        self.snapshots = snapshots
        self._watchers: dict[str, OutsideWatcher] = {}

    def watch(self, root: Path, loop: asyncio.AbstractEventLoop) -> None:
        """Start recording outside edits in ``root``, once (its first snapshot is taken off the loop)."""
        if str(root) in self._watchers:
            return
        watcher = OutsideWatcher(root, self.ledger, self.snapshots.for_root(root))
        self._watchers[str(root)] = watcher
        loop.run_in_executor(None, watcher.start)

    def running(self) -> list[OutsideWatcher]:
        return list(self._watchers.values())

    async def close(self) -> None:
        """Stop every watcher (each stop joins the observer's thread, so off the loop)."""
        watchers, self._watchers = list(self._watchers.values()), {}
        for watcher in watchers:
            await asyncio.to_thread(watcher.stop)
