"""What a shell command changed: incremental workspace snapshots, diffed and recorded.

A command writes files behind the kernel's back, so the kernel photographs
the workspace before and after it and records every difference as an
``fs.write`` entry (actor = the agent, cause = the call), after which undo
reverses a command like any other write. Every file's contents go to the
ledger's blob store when first seen, so any "before" is restorable.

Snapshots are incremental: the index remembers each file's size, mtime,
ctime and inode, and a file whose stat is unchanged is not read again, so the
cost of a snapshot grows with what changed, not with the workspace. A file
modified within ``RACY_NS`` of being read is marked racy and re-read next
time (a later same-size write in the same clock tick would keep its mtime).
The index is kept in memory and, optionally, in a small SQLite cache file.

Differences found by the *before* snapshot that the ledger cannot explain
(the file does not hold what the ledger last wrote there) were made by some
other program; they are recorded with actor ``outside``, as the watcher does.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import stat
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping

from ledger import NOT_AGENTS, OUTSIDE, FileChange, SecretInName, Snapshot
from ledger.blobs import MAX_BLOB_BYTES

from ..core.errors import ToolFailure
from .ignore import VENV_MARKER, IgnoreRules
from .root import Workspace
from .secret_names import holds_secret, move_aside, safe_rel
from .snapshot_cache import FileState, SnapshotCache

if TYPE_CHECKING:
    from ledger import Ledger

RACY_NS = 50_000_000  # wider than any filesystem timestamp granularity we expect
_CHUNK = 1 << 20
Tree = Mapping[str, FileState]


@dataclass(frozen=True)
class TreeChange:
    rel: str
    before: FileState | None
    after: FileState | None

    @property
    def kind(self) -> str:
        if self.before is None or self.after is None:
            return "created" if self.before is None else "deleted"
        if self.before.digest != self.after.digest:
            return "modified"
        return "mode" if self.before.mode != self.after.mode else "touched"  # same bytes, other metadata


@dataclass(frozen=True)
class CommandChanges:
    """What a command changed, as recorded: its fs.write entries and its snapshot entry."""

    entries: tuple[FileChange, ...]
    snapshot: Snapshot
    changes: tuple[TreeChange, ...]
    hash_only: tuple[str, ...]      # relative paths recorded by hash only (too large to keep)
    not_undoable: tuple[str, ...]   # of those, the ones whose earlier contents cannot be restored
    unnamed: int = 0                # files named with a secret that could not be moved aside (not recorded)
    renamed: tuple[str, ...] = ()   # files named with a secret, moved to (and recorded at) these names


def diff(before: Tree, after: Tree) -> list[TreeChange]:
    """Created, modified and deleted files between two trees (a rename is a delete and a create)."""
    out = [TreeChange(rel, before.get(rel), new) for rel, new in after.items()
           if before.get(rel) is not new and (rel not in before or before[rel].digest != new.digest)]
    out += [TreeChange(rel, before[rel], None) for rel in before.keys() - after.keys()]
    return sorted(out, key=lambda c: c.rel)


def _metadata_changes(before: Tree, after: Tree) -> list[TreeChange]:
    """Files a command re-stamped without changing their bytes: ``touch`` (mtime) or ``chmod`` (mode).

    Only files read again are compared (the index keeps the same state object for the others)."""
    out = []
    for rel, new in after.items():
        old = before.get(rel)
        if old is None or old is new or old.digest != new.digest:
            continue
        if old.mtime_ns != new.mtime_ns or old.mode != new.mode:
            out.append(TreeChange(rel, old, new))
    return out


def _changes_since(old: Tree, new: Tree, fresh: list[str]) -> list[TreeChange]:
    """``diff(old, new)`` when only ``fresh`` paths were re-read: cost grows with what changed."""
    out = [TreeChange(rel, old.get(rel), new[rel]) for rel in fresh if rel not in old or old[rel].digest != new[rel].digest]
    created = sum(1 for rel in fresh if rel not in old)
    if len(new) - created != len(old):  # some old paths were not seen again: deleted
        out += [TreeChange(rel, old[rel], None) for rel in old.keys() - new.keys()]
    return sorted(out, key=lambda c: c.rel)


class SnapshotIndex:
    """The snapshot index of one workspace, bound to one ledger; thread-safe."""

    def __init__(self, root: Path, ledger: "Ledger", *, max_blob: int = MAX_BLOB_BYTES,
                 cache_dir: Path | None = None, racy_ns: int = RACY_NS) -> None:
        self.root = Path(os.path.realpath(root))
        self.racy_ns = racy_ns
        self.ledger = ledger
        self.max_blob = max_blob
        self._lock = threading.RLock()
        self._busy = 0
        self._idle_listeners: list[Callable[[], None]] = []
        self._cache = SnapshotCache(cache_dir, self.root, ledger.path) if cache_dir is not None else None
        self._tree: Tree = self._cache.load() if self._cache is not None else {}
        self._baseline = bool(self._tree)
        self.rules = IgnoreRules(self.root, trusted=self._written_by_a_person)  # reads the tree and the ledger
        ledger_files = list(ledger.own_files)
        if self._cache is not None:
            ledger_files += [str(self._cache.path) + suffix for suffix in ("", "-wal", "-shm", "-journal")]
        self._excluded = {self._rel(Path(p)) for p in ledger_files} - {None}

    def for_root(self, root: Path) -> "SnapshotIndex":
        if Path(os.path.realpath(root)) != self.root:
            raise ValueError(f"this snapshot index is for {self.root}, not {root}")
        return self

    @property
    def excluded(self) -> frozenset[str]:
        """The ledger's and the cache's own files inside the workspace: never recorded at all."""
        return frozenset(rel for rel in self._excluded if rel is not None)

    def _written_by_a_person(self, path: Path, digest: str) -> bool:
        """Whether the ignore file's bytes (``digest``) may set rules: not when the ledger says an agent
        wrote them last, nor while a command runs and neither the ledger nor the last snapshot knew them
        (that command may have written them). Every agent's write is recorded (the file is never ignored),
        so other bytes are a person's: written outside a command, or there before the command began."""
        last = self.ledger.last_write(str(path))
        if last is not None and last.after == digest:
            return last.actor in NOT_AGENTS
        seen = self._tree.get(path.name)
        return not self.busy or (seen is not None and seen.digest == digest)

    def ignores(self, rel: str, *, is_dir: bool = False) -> bool:
        """True when ``rel`` is not tracked (ignore rules, or the ledger's and cache's own files)."""
        return rel in self._excluded or self.rules.ignores_path(rel, is_dir=is_dir)

    @property
    def tree(self) -> Tree:
        return self._tree

    @property
    def has_baseline(self) -> bool:
        """True once a snapshot was taken (or loaded): differences from it mean something changed."""
        return self._baseline

    # ---- commands in flight (the watcher waits for them) --------------------

    @property
    def busy(self) -> bool:
        return self._busy > 0

    def add_idle_listener(self, listener: Callable[[], None]) -> None:
        self._idle_listeners.append(listener)

    def remove_idle_listener(self, listener: Callable[[], None]) -> None:
        if listener in self._idle_listeners:
            self._idle_listeners.remove(listener)

    @contextmanager
    def command(self) -> Iterator[None]:
        """Mark a command as running: its changes are the command's, not ``outside``'s."""
        with self._lock:
            self._busy += 1
        try:
            yield
        finally:
            with self._lock:
                self._busy -= 1
                idle = self._busy == 0
            if idle:
                for listener in list(self._idle_listeners):
                    listener()

    # ---- snapshots ------------------------------------------------------------

    def scan(self, *, reconcile: bool = True) -> tuple[Tree, list[FileChange]]:
        """A full snapshot (re-reading only what changed); records unexplained changes as ``outside``."""
        new, _changes, recorded = self._scan(reconcile)
        return new, recorded

    def _scan(self, reconcile: bool) -> tuple[Tree, list[TreeChange], list[FileChange]]:
        with self._lock:
            rules_changed = self.rules.refresh()
            old = self._tree
            new: dict[str, FileState] = {}
            fresh: list[str] = []
            self._scan_into(self.root, "", old, new, fresh)
            changes = _changes_since(old, new, fresh)
            if rules_changed:  # a file the new rules ignore is not gone: it is only no longer looked at
                changes = [c for c in changes if c.after is not None or not os.path.lexists(self.root / c.rel)]
            recorded = self._reconcile(changes) if reconcile and self._baseline else []
            self._commit(new, {rel: new[rel] for rel in fresh}, [c.rel for c in changes if c.after is None])
            return new, changes, recorded

    async def snapshot(self) -> tuple[Tree, list[FileChange]]:
        """``scan`` off the event loop."""
        return await asyncio.to_thread(self.scan)

    def capture(self, before: Tree, *, actor: str, cause: int | None) -> CommandChanges:
        """The snapshot after a command: diff against ``before`` and record each change as the agent's."""
        with self._lock:
            prior = self._tree
            after, changes, _ = self._scan(reconcile=False)
            if prior is not before:  # the index moved on since ``before`` (it should not): diff in full
                changes = diff(before, after)
            changes = sorted([*changes, *_metadata_changes(before, after)], key=lambda c: c.rel)
            try:
                return self._record(changes, len(after), actor, cause, 0)
            except SecretInName:  # a name the ledger refuses: move those files aside, then record all
                changes, unnamed, renamed = self._secret_names_aside(changes)
                recorded = self._record(changes, len(after), actor, cause, unnamed)
                return replace(recorded, renamed=renamed)

    def _record(self, changes: list[TreeChange], files: int, actor: str, cause: int | None,
                unnamed: int) -> CommandChanges:
        entries, hash_only, lost = [], [], []
        for change in changes:
            before_hash = None if change.before is None else change.before.digest
            after_hash = None if change.after is None else change.after.digest
            before_ok = change.before is None or (change.before.stored and self.ledger.has_blob(change.before.digest))
            after_ok = change.after is None or change.after.stored
            if not (before_ok and after_ok):
                hash_only.append(change.rel)
            if not before_ok:
                lost.append(change.rel)
            entries.append(FileChange(actor=actor, path=str(self.root / change.rel), before=before_hash,
                                      after=after_hash, cause=cause, stored=before_ok and after_ok,
                                      mode=None if change.before is None else change.before.mode))
        snap = Snapshot(actor=actor, root=str(self.root), cause=cause, files=files, changed=len(changes))
        stored = self.ledger.append_many([*entries, snap])
        return CommandChanges(tuple(stored[:-1]), stored[-1], tuple(changes),  # type: ignore[arg-type]
                              tuple(hash_only), tuple(lost), unnamed)

    def _secret_names_aside(self, changes: list[TreeChange]) -> tuple[list[TreeChange], int, tuple[str, ...]]:
        """Changes whose path holds a secret, moved to (and recorded at) the name redacted
        (``secret_names``); how many could not be moved (they stay unrecorded, and are counted)."""
        redactor = self.ledger.redactor
        if redactor is None:
            return changes, 0, ()
        ws, tree, out, unnamed, renamed = Workspace(self.root), dict(self._tree), [], 0, []
        for change in changes:
            if not holds_secret(redactor, str(self.root / change.rel)):
                out.append(change)
                continue
            new_rel = safe_rel(redactor, self.root, change.rel,
                               lambda r: r in tree or os.path.lexists(self.root / r))
            if change.after is not None:
                try:
                    move_aside(ws, change.rel, new_rel)
                except (OSError, ToolFailure):
                    unnamed += 1
                    continue
                tree[new_rel] = tree.pop(change.rel, change.after)
            out.append(TreeChange(new_rel, change.before, change.after))
            renamed.append(new_rel)
        self._commit(tree, {rel: tree[rel] for rel in tree.keys() - self._tree.keys()},
                     [rel for rel in self._tree.keys() - tree.keys()])
        return sorted(out, key=lambda c: c.rel), unnamed, tuple(renamed)

    def refresh(self, rels: Iterable[str]) -> list[FileChange]:
        """Re-look at some paths (files or folders) and record what changed there as ``outside``."""
        with self._lock:
            self.rules.refresh()
            old = self._tree
            new = dict(old)
            for rel in set(rels):
                self._refresh_one(rel, old, new)
            changes = diff(old, new)
            recorded = self._reconcile(changes)
            self._commit(new, {rel: s for rel, s in new.items() if old.get(rel) is not s},
                         [c.rel for c in changes if c.after is None])
            return recorded

    # ---- internals -----------------------------------------------------------

    def _rel(self, path: Path) -> str | None:
        try:
            rel = Path(os.path.realpath(path.parent)).joinpath(path.name).relative_to(self.root).as_posix()
        except ValueError:
            return None
        return None if rel == "." else rel

    def _scan_into(self, folder: Path, rel_folder: str, old: Tree, new: dict[str, FileState],
                   fresh: list[str] | None = None) -> None:
        """Put the state of every kept regular file under ``folder`` into ``new``; list re-read ones in ``fresh``.

        The hot loop of every snapshot: one lstat per file, and a read only
        when the stat differs from ``old`` (or the old state was racy).
        """
        stack = [(str(folder), rel_folder)]
        ignores_dir, ignores_file, file_cache = self.rules.ignores_dir, self.rules.ignores_file, self.rules.file_cache
        excluded, previous, read = self._excluded, old.get, self._read
        while stack:
            abs_dir, rel_dir = stack.pop()
            try:
                with os.scandir(abs_dir) as it:
                    entries = list(it)
            except OSError:
                continue
            if rel_dir and any(e.name == VENV_MARKER for e in entries):
                continue
            prefix = rel_dir + "/" if rel_dir else ""
            for entry in entries:
                rel = prefix + entry.name
                try:
                    if entry.is_file(follow_symlinks=False):  # most entries: test files first
                        if rel in excluded:
                            continue
                        hit = file_cache.get(rel)
                        if hit or (hit is None and ignores_file(rel)):
                            continue
                        st = entry.stat(follow_symlinks=False)
                    elif entry.is_dir(follow_symlinks=False):
                        if not ignores_dir(rel):
                            stack.append((entry.path, rel))
                        continue
                    else:
                        continue
                except OSError:
                    continue
                prev = previous(rel)
                if prev is not None and prev.key == (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino):
                    new[rel] = prev
                else:
                    state = read(entry.path)
                    if state is not None:
                        new[rel] = state
                        if fresh is not None:
                            fresh.append(rel)

    def _state_of(self, path: str, prev: FileState | None) -> FileState | None:
        """The file's state: ``prev`` when its stat is unchanged and trustworthy, else read afresh."""
        try:
            st = os.stat(path, follow_symlinks=False)
        except OSError:
            return None
        if prev is not None and prev.key == (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino):
            return prev
        return self._read(path)

    def _read(self, path: str) -> FileState | None:
        """Hash the file and store its contents in the ledger (unless too large)."""
        for _attempt in range(3):
            started = time.time_ns()
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                return None
            with os.fdopen(fd, "rb") as fh:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    return None
                if st.st_size > self.max_blob:
                    sha = hashlib.sha256()
                    while chunk := fh.read(_CHUNK):
                        sha.update(chunk)
                    digest, stored = sha.hexdigest(), False
                else:
                    data = fh.read()
                    digest, stored = self._store(data)
                end = os.fstat(fd)
            same = (st.st_size, st.st_mtime_ns, st.st_ctime_ns) == (end.st_size, end.st_mtime_ns, end.st_ctime_ns)
            if same or _attempt == 2:
                racy = not same or max(st.st_mtime_ns, st.st_ctime_ns) >= started - self.racy_ns
                return FileState(end.st_size, end.st_mtime_ns, end.st_ctime_ns, end.st_ino,
                                 stat.S_IMODE(end.st_mode), digest, stored, racy)
        return None  # unreachable

    def _store(self, data: bytes) -> tuple[str, bool]:
        if len(data) > self.max_blob:  # grew between stat and read
            return hashlib.sha256(data).hexdigest(), False
        return self.ledger.put_blob(data), True

    def _refresh_one(self, rel: str, old: Tree, new: dict[str, FileState]) -> None:
        path = self.root / rel
        prefix = rel + "/"
        try:
            st = os.lstat(path)
        except OSError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            for key in [k for k in new if k.startswith(prefix)]:
                del new[key]
            if not self.rules.ignores_path(rel, is_dir=True):
                self._scan_into(path, rel, old, new)
            return
        for key in [k for k in new if k.startswith(prefix)]:  # a folder that is gone
            del new[key]
        state = None
        if (st is not None and stat.S_ISREG(st.st_mode) and rel not in self._excluded
                and not self.rules.ignores_path(rel)):
            state = self._state_of(str(path), old.get(rel))
        if state is None:
            new.pop(rel, None)
        else:
            new[rel] = state

    def _reconcile(self, changes: list[TreeChange]) -> list[FileChange]:
        """Record as ``outside`` the changes the ledger cannot explain (it did not write those bytes)."""
        entries = []
        for change in changes:
            path = str(self.root / change.rel)
            current = None if change.after is None else change.after.digest
            last = self.ledger.last_write(path)
            if last is not None and last.after == current:
                continue  # the kernel (a tool, an undo) wrote exactly this
            before = last.after if last is not None else (None if change.before is None else change.before.digest)
            if before == current:
                continue
            stored = (before is None or self.ledger.has_blob(before)) and (change.after is None or change.after.stored)
            entries.append(FileChange(actor=OUTSIDE, path=path, before=before, after=current, cause=None,
                                      stored=stored, mode=None if change.before is None else change.before.mode))
        if not entries:
            return []
        try:
            return self.ledger.append_many(entries)  # type: ignore[return-value]
        except SecretInName:  # someone else's file named with a secret: the ledger cannot name it; theirs to keep
            kept = [e for e in entries if not holds_secret(self.ledger.redactor, e.path)]
            return self.ledger.append_many(kept) if kept else []  # type: ignore[return-value]

    def _commit(self, new: dict[str, FileState], upserts: Mapping[str, FileState], deletes: Iterable[str]) -> None:
        self._tree = new
        self._baseline = True
        if self._cache is not None:
            self._cache.save(upserts, deletes)

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()


class SnapshotIndexes:
    """One index per workspace root, all bound to one ledger (what ``shell_tool`` is given)."""

    def __init__(self, ledger: "Ledger", *, max_blob: int = MAX_BLOB_BYTES, cache_dir: Path | None = None) -> None:
        self.ledger = ledger
        self.max_blob = max_blob
        self.cache_dir = cache_dir
        self._indexes: dict[Path, SnapshotIndex] = {}
        self._lock = threading.Lock()

    def for_root(self, root: Path) -> SnapshotIndex:
        key = Path(os.path.realpath(root))
        with self._lock:
            if key not in self._indexes:
                self._indexes[key] = SnapshotIndex(key, self.ledger, max_blob=self.max_blob, cache_dir=self.cache_dir)
            return self._indexes[key]

    def close(self) -> None:
        """Close every index's cache file."""
        with self._lock:
            indexes, self._indexes = list(self._indexes.values()), {}
        for index in indexes:
            index.close()
