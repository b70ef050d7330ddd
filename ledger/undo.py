"""Undo: reverse the file changes after a point, newest first, by adding entries.

The plan walks the fs.write entries after the point from newest to oldest.
A reversal whose target is also after the point cancels against it (the pair
already nets to nothing), which makes "undo after X" always restore the files
to how they stood at X, and "undo after an undo's point" a redo. Changes by
``outside`` (other programs) are never reversed: they turn their file into a
conflict, as does any file whose bytes differ from what the ledger says was
last written there. A conflicting file is left untouched entirely; the rest
proceeds.

Applying appends one ``undo`` entry naming every change it reverses and, in
the same transaction, one reversal ``fs.write`` per change (cause = the undo,
reverts = the change), and only then lands the files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Protocol, Sequence

from . import files
from .actors import OUTSIDE, USER
from .entries import Entry, FileChange, Undo
from .errors import UnknownSeq


class UndoLedger(Protocol):
    """What undo needs of a ledger (``ledger.store.Ledger`` is one; this module never imports it)."""

    def last_seq(self) -> int: ...
    def get(self, seq: int) -> Entry: ...
    def file_changes(self, after: int, path: str | None = None) -> list[FileChange]: ...
    def last_change_to(self, path: str, content_hash: str | None) -> FileChange | None: ...
    def has_blob(self, digest: str) -> bool: ...
    def blob(self, digest: str) -> bytes: ...
    def append_caused(self, first: Entry, caused: Sequence[Entry]) -> list[Entry]: ...


@dataclass(frozen=True)
class Step:
    """One change to reverse: ``path`` goes back to ``restore`` (None = no file)."""

    change: FileChange
    restore: str | None
    landed: bool  # False when the change never reached the disk (crash before landing)

    @property
    def path(self) -> str:
        return self.change.path

    @property
    def action(self) -> str:
        if self.restore is None:
            return "delete"
        return "create" if self.change.after is None else "restore"


@dataclass(frozen=True)
class Conflict:
    """A file left untouched: it holds bytes the ledger did not write last, or cannot be restored."""

    path: str
    reason: str
    changed_by: str | None = None  # who made the change that is there now, when the ledger knows


@dataclass(frozen=True)
class UndoReport:
    after: int
    steps: tuple[Step, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    undo_seq: int | None = None  # None on a dry run or when there was nothing to do
    dry_run: bool = False
    reversed: tuple[int, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.conflicts

    @property
    def files(self) -> list[str]:
        return sorted({s.path for s in self.steps})


def _origin_actor(ledger: UndoLedger, change: FileChange, cache: dict[int, str]) -> str:
    """Who the change ultimately belongs to: a reversal belongs to the author of what it reverses."""
    seen = 0
    while change.reverts is not None and seen < 256:
        if change.reverts in cache:
            return cache[change.reverts]
        target = ledger.get(change.reverts)
        assert isinstance(target, FileChange)
        change = target
        seen += 1
    cache[change.seq] = change.actor
    return change.actor


def plan(ledger: UndoLedger, after_seq: int, only_actor: str | None = None) -> tuple[list[Step], list[Conflict]]:
    """What an undo after ``after_seq`` would do, without doing it."""
    if after_seq < 0 or after_seq > ledger.last_seq():
        raise UnknownSeq(after_seq)
    changes = ledger.file_changes(after_seq)
    cancelled: set[int] = set()
    origins: dict[int, str] = {}
    state: dict[str, str | None] = {}  # path -> hash the file holds once the planned steps land
    steps: dict[str, list[Step]] = {}
    conflicts: dict[str, Conflict] = {}
    outside_paths: set[str] = set()

    for change in changes:  # newest first
        if change.seq in cancelled or change.path in conflicts:
            continue
        if change.reverts is not None and change.reverts > after_seq:
            cancelled.add(change.reverts)
            continue
        if change.actor == OUTSIDE:
            outside_paths.add(change.path)
            continue
        if only_actor is not None and _origin_actor(ledger, change, origins) != only_actor:
            continue
        if change.path not in state and _moved(change.path):
            conflicts[change.path] = Conflict(change.path, MOVED)
            steps.pop(change.path, None)
            continue
        current = state[change.path] if change.path in state else _current(change)
        if change.path in outside_paths or current not in (change.after, change.before):
            conflicts[change.path] = _conflict(ledger, change.path, current)
            steps.pop(change.path, None)
            continue
        if change.before is not None and not ledger.has_blob(change.before):
            conflicts[change.path] = Conflict(change.path, NOT_KEPT)
            steps.pop(change.path, None)
            continue
        landed = current == change.after and change.after != change.before
        steps.setdefault(change.path, []).append(Step(change, change.before, landed))
        state[change.path] = change.before

    ordered = sorted((s for group in steps.values() for s in group), key=lambda s: -s.change.seq)
    return ordered, sorted(conflicts.values(), key=lambda c: c.path)


def _conflict(ledger: UndoLedger, path: str, current: str | None) -> Conflict:
    last = ledger.last_change_to(path, current)
    if last is None:
        return Conflict(path, "changed since, by a program the ledger did not see", None)
    return Conflict(path, f"changed since by {last.actor} (#{last.seq})", last.actor)


def undo(ledger: UndoLedger, after_seq: int, *, by: str = USER, only_actor: str | None = None,
         dry_run: bool = False) -> UndoReport:
    steps, conflicts = plan(ledger, after_seq, only_actor)
    reversed_seqs = tuple(s.change.seq for s in steps)
    if dry_run or (not steps and not conflicts):
        return UndoReport(after_seq, tuple(steps), tuple(conflicts), None, dry_run, reversed_seqs)
    head = Undo(actor=by, after_seq=after_seq, only_actor=only_actor, reversed=reversed_seqs,
                conflicts=tuple(c.path for c in conflicts))
    reversals = [
        FileChange(actor=by, path=s.path, before=s.change.after if s.landed else s.change.before,
                   after=s.restore, cause=None, reverts=s.change.seq, mode=s.change.mode,
                   was_link=s.change.is_link if s.landed else s.change.was_link, is_link=s.change.was_link)
        for s in steps
    ]
    undo_entry = ledger.append_caused(head, reversals)[0]
    late: list[Conflict] = []
    for step in steps:
        late_conflict = _land(ledger, step)
        if late_conflict is not None:
            late.append(late_conflict)
    return UndoReport(after_seq, tuple(steps), tuple(conflicts) + tuple(late), undo_entry.seq, False, reversed_seqs)


def _land(ledger: UndoLedger, step: Step) -> Conflict | None:
    """Land one reversal; a file changed since planning is left alone and reported."""
    if _moved(step.path):
        return Conflict(step.path, MOVED)
    target = files.absolute(step.path)
    current = _current(step.change)  # in chunks: whatever sits there now may be huge
    mode = None if step.change.was_link or step.change.is_link else files.mode_of(target)
    if current == step.restore:
        if _mode_only(step.change) and mode != step.change.mode and step.change.mode is not None:
            os.chmod(target, step.change.mode)  # a chmod alone: put the permission bits back
        return None
    expected = step.change.after if step.landed else step.change.before
    if current != expected:
        return _conflict(ledger, step.path, current)
    content = None if step.restore is None else ledger.blob(step.restore)
    if content is not None and step.change.was_link:
        files.land_link(target, content)
        return None
    if step.change.is_link and content is not None:
        files.land(target, None)  # the link itself goes; the file is made afresh
        mode = None
    files.land(target, content, mode if mode is not None else step.change.mode)
    return None


MOVED = "a folder on its path is now a link to elsewhere; undo does not follow it"
# The ledger kept only the hash of the earlier contents. Why (too large, or the ignore rules matched when it
# changed) is not on the record, so the sentence does not guess: a 9-byte file was once called too large.
NOT_KEPT = "its earlier contents were not kept in the ledger (only their hash was recorded)"


def _moved(path: str) -> bool:
    """The recorded path (absolute, its folders resolved when it was written) now leads elsewhere:
    a folder on it was replaced by a link since, so writing there would land outside where it was."""
    return str(files.absolute(path)) != path


def _current(change: FileChange) -> str | None:
    """What the file holds now, as the change would have recorded it (a link by its target's text)."""
    target = files.absolute(change.path)
    return files.link_or_file_hash(target) if change.was_link or change.is_link else files.hash_of(target)


def _mode_only(change: FileChange) -> bool:
    return change.before == change.after and change.before is not None and not (change.was_link or change.is_link)
