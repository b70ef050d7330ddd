"""Applying a command's overlay upper layer to the real workspace, through the ledger.

When a command ran on an overlay (``kernel.sandbox.overlay``) the upper
layer holds exactly what it created, changed or deleted; the real workspace
was not touched. This module reads that layer, records every change as the
agent's ``fs.write`` caused by the call — old contents from the real file,
new contents from the upper layer — in one ledger transaction, and only then
lands them (``landing``): from the open workspace root without following
links, each file hard-linked into place from the very inode the record hashed
(the layer lives on the workspace's filesystem), or refused and listed in
``failed`` when it can no longer land as recorded. The cost follows what
changed, not the size of the workspace. A path the ledger refuses to name
(it holds a secret) is recorded and landed under its name redacted
(``secret_names``).

What the layer holds, and how each is read:

- a regular file: created or changed (a chmod alone copies the whole file up,
  ``metacopy=off``; same contents with other permission bits is recorded as a
  change whose before and after are equal, and undo puts the bits back);
- a character device 0:0 (owned by 0:0 on the host when the mount was made
  as root in a user namespace): a whiteout, the path was deleted; over a
  folder, every file below it was;
- a folder marked opaque (``user.overlay.opaque`` or ``trusted.overlay.opaque``
  = ``y``): it was deleted and made again, so what the real folder held and
  the layer does not is deleted;
- a symlink: recorded as a link (its target's text is the contents, never
  followed) and landed as the link itself;
- a folder rename: with ``redirect_dir=nofollow`` the kernel refuses it and
  ``mv`` copies then deletes, so it arrives as new files plus a whiteout;
- ``touch`` alone: the file is copied up with the same bytes and a new mtime,
  recorded as "touched" (before and after equal) and landed with that mtime;
- one name of a hard-linked file changed: overlayfs copies that name up on its
  own (the command itself then sees the other names unchanged), so landing it
  splits the link: that name gets the new contents in a file of its own, the
  other names keep the old ones. It is recorded like any change and listed in
  ``links_split`` (the result says so); undo puts the old bytes back under that
  name, as a file of its own (the link stays split).

The ignore rules now decide only whether contents are kept: an ignored path
is still recorded, by hash; its contents count as kept when the ledger holds
them already (a file it knew before the rules ignored it stays restorable).
A file that some other program or agent changed while the command ran (the
ledger holds a newer write by someone else, or its ctime is newer than the
command's start) is a conflict: the other change is
recorded (as ``outside`` when the ledger could not explain it), the command's
version is applied on top, and the result names the file, so neither is lost.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ledger import OUTSIDE, FileChange, SecretInName, Snapshot

from ..core.errors import ToolFailure
from . import landing
from .ignore import VENV_MARKER
from .landing import Ident, NotAsRecorded
from .root import Workspace
from .secret_names import holds_secret, safe_rel

if TYPE_CHECKING:
    from ledger import Ledger

_OPAQUE = (b"user.overlay.opaque", b"trusted.overlay.opaque")
_CHUNK = 1 << 20
_FLUSH_BYTES = 64 << 20  # blobs are stored in batches of about this much, to bound memory


@dataclass(frozen=True)
class Conflict:
    """A file changed both by the command and by someone else while it ran."""

    rel: str
    by: str          # who made the other change
    seq: int         # the ledger entry of the other change


@dataclass
class Applied:
    """What applying one upper layer did."""

    entries: list[FileChange] = field(default_factory=list)
    snapshot: Snapshot | None = None
    changes: list[tuple[str, str]] = field(default_factory=list)  # (rel, created|modified|deleted|mode|link)
    hash_only: list[str] = field(default_factory=list)       # too large to keep
    not_undoable: list[str] = field(default_factory=list)    # earlier contents not kept
    ignored: list[str] = field(default_factory=list)         # recorded by hash: the ignore rules matched
    skipped: list[str] = field(default_factory=list)         # special files (pipes, sockets, devices)
    conflicts: list[Conflict] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (rel, why) recorded, refused at landing
    links_split: list[tuple[str, int]] = field(default_factory=list)  # (rel, names it had): a hard link broken
    renamed: list[str] = field(default_factory=list)  # named with a secret: recorded and landed under these names


@dataclass(frozen=True)
class _Content:
    """One side of a change: its hash, permission bits, and whether the bytes are kept."""

    digest: str | None
    mode: int | None
    stored: bool
    link: bool = False
    ident: Ident | None = None  # the file the record read (landing checks it is still that one)


@dataclass(frozen=True)
class _Plan:
    rel: str
    before: _Content
    after: _Content
    source: Path | None  # in the upper layer (None: a deletion)
    ignored: bool = False  # the ignore rules matched: recorded by hash only
    land_as: str | None = None  # ``rel`` holds a secret: recorded and landed under this name (``secret_names``)

    @property
    def shown(self) -> str:
        return self.rel if self.land_as is None else self.land_as


class UpperLayer:
    """Reads one upper layer and applies it to ``root`` through ``ledger``."""

    def __init__(self, root: Path, upper: Path, ledger: "Ledger", *, ignores: Callable[[str, bool], bool],
                 excluded: frozenset[str] = frozenset(), max_blob: int, since_seq: int, start_ns: int,
                 known: Callable[[str], str | None] = lambda rel: None) -> None:
        self.root, self.upper, self.ledger = root, upper, ledger
        self.known = known  # what the snapshot index last saw in a file (its hash), when it has seen it
        self.ignores, self.excluded, self.max_blob = ignores, excluded, max_blob
        self.since_seq, self.start_ns = since_seq, start_ns
        self._plans: list[_Plan] = []
        self._deleted_dirs: list[str] = []
        self._made_dirs: list[tuple[str, int]] = []
        self._dir_modes: list[tuple[str, int]] = []
        self._blobs: dict[str, bytes] = {}
        self._blob_bytes = 0
        self.result = Applied()

    # ---- reading the layer ---------------------------------------------------

    def read(self) -> None:
        # (folder, inside an opaque one, ignored, the real workspace has that folder as a folder): below a
        # folder the real workspace lacks, or holds as a link (to anywhere), nothing real is looked at,
        # so a link planted in the workspace never leads the reading outside it
        stack: list[tuple[str, bool, bool, bool]] = [("", False, False, True)]
        while stack:
            rel_dir, in_opaque, hidden, real_dir = stack.pop()
            try:
                with os.scandir(self.upper / rel_dir if rel_dir else self.upper) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                st = entry.stat(follow_symlinks=False)
                real = _lstat(self.root / rel) if real_dir else None
                if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
                    self._delete_tree(rel, real)
                elif stat.S_ISDIR(st.st_mode):
                    if real is not None and not stat.S_ISDIR(real.st_mode):
                        self._delete(rel, real)  # a file replaced by a folder
                        real = None
                    if real is None:
                        self._made_dirs.append((rel, stat.S_IMODE(st.st_mode)))
                    opaque = in_opaque or _opaque(entry.path)  # below an opaque folder nothing is merged
                    ignored = hidden or self.ignores(rel, True) or os.path.lexists(os.path.join(entry.path, VENV_MARKER))
                    if real is not None:
                        if opaque:
                            self._delete_missing(rel)
                        if stat.S_IMODE(real.st_mode) != stat.S_IMODE(st.st_mode):
                            self._dir_modes.append((rel, stat.S_IMODE(st.st_mode)))
                    stack.append((rel, opaque, ignored, real is not None))
                elif stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
                    if real is not None and stat.S_ISDIR(real.st_mode):
                        self._delete_tree(rel, real)  # a folder replaced by a file
                        real = None
                    self._change(rel, real, Path(entry.path), st, keep=not (hidden or self.ignores(rel, False)))
                else:
                    self.result.skipped.append(rel)

    def _delete_tree(self, rel: str, real: os.stat_result | None) -> None:
        """``rel`` was deleted: a file, or a folder with everything in it."""
        if real is None:
            return
        if not stat.S_ISDIR(real.st_mode):
            self._delete(rel, real)
            return
        for folder, dirs, names in os.walk(self.root / rel, topdown=False):
            rel_folder = Path(folder).relative_to(self.root).as_posix()
            for name in [*names, *(d for d in dirs if os.path.islink(os.path.join(folder, d)))]:
                sub = f"{rel_folder}/{name}"
                self._delete(sub, _lstat(self.root / sub))
            self._deleted_dirs.append(rel_folder)

    def _delete_missing(self, rel: str) -> None:
        """An opaque folder: what the real folder holds and the layer does not was deleted."""
        try:
            names = os.listdir(self.root / rel)
        except OSError:
            return
        for name in names:
            sub = f"{rel}/{name}"
            if not os.path.lexists(self.upper / sub):
                self._delete_tree(sub, _lstat(self.root / sub))

    def _delete(self, rel: str, real: os.stat_result | None) -> None:
        if real is None or rel in self.excluded:
            return
        keep = not self.ignores(rel, False)
        before = self._earlier(self.root / rel, real, keep)
        if before is not None:
            self._plans.append(_Plan(rel, before, _Content(None, None, True), None, ignored=not keep))

    def _change(self, rel: str, real: os.stat_result | None, source: Path, st: os.stat_result, *, keep: bool) -> None:
        if rel in self.excluded:
            return
        after = self._content(source, st, keep)
        before = _Content(None, None, True) if real is None else self._earlier(self.root / rel, real, keep)
        if after is None or before is None:
            self.result.skipped.append(rel)
            return
        if before.digest == after.digest and before.mode == after.mode and before.link == after.link:
            if after.link or real is None or real.st_mtime_ns == st.st_mtime_ns:
                return  # copied up without a change (opened for writing, never written)
            # ``touch``: the same bytes, a new mtime: recorded (kind "touched") and landed with it
        if real is not None and stat.S_ISREG(real.st_mode) and real.st_nlink > 1:
            # overlayfs copies one name of a hard-linked file up on its own: landing it replaces that
            # name only, and the file's other names keep the earlier contents (said in the result)
            self.result.links_split.append((rel, real.st_nlink))
        self._plans.append(_Plan(rel, before, after, source, ignored=not keep))

    def _content(self, path: Path, st: os.stat_result, keep: bool) -> _Content | None:
        """Hash a file or link (storing its bytes when ``keep`` and not too large); None for anything else."""
        if stat.S_ISLNK(st.st_mode):
            data = os.fsencode(os.readlink(path))
            return _Content(self._keep(data, keep), None, keep, link=True, ident=Ident.of(st))
        if not stat.S_ISREG(st.st_mode):
            return None
        mode = stat.S_IMODE(st.st_mode)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as fh:
            ident = Ident.of(os.fstat(fd))  # before reading: a write meanwhile moves the ctime, and landing refuses
            if keep and st.st_size <= self.max_blob:
                data = fh.read(self.max_blob + 1)
                if len(data) <= self.max_blob:
                    return _Content(self._keep(data, True), mode, True, ident=ident)
                fh.seek(0)
            sha = hashlib.sha256()
            while chunk := fh.read(_CHUNK):
                sha.update(chunk)
        return _Content(sha.hexdigest(), mode, False, ident=ident)

    def _earlier(self, path: Path, real: os.stat_result, keep: bool) -> _Content | None:
        """The real file's contents before the change: kept when the ignore rules allow, and counted as
        kept whenever the ledger holds those bytes already (a file it knew before the rules ignored it
        stays restorable, whatever a command did to the rules)."""
        before = self._content(path, real, keep)
        if before is not None and not before.stored and before.digest is not None \
                and (before.digest in self._blobs or self.ledger.has_blob(before.digest)):
            return replace(before, stored=True)
        return before

    def _keep(self, data: bytes, keep: bool) -> str:
        name = hashlib.sha256(data).hexdigest()
        if keep and name not in self._blobs:
            self._blobs[name] = data
            self._blob_bytes += len(data)
            if self._blob_bytes > _FLUSH_BYTES:
                self.ledger.put_blobs(self._blobs)
                self._blobs, self._blob_bytes = {}, 0
        return name

    # ---- recording and landing --------------------------------------------------

    def record(self, actor: str, cause: int | None) -> None:
        """Store the contents and append every change (one transaction), conflicts' other side first.
        A path the ledger refuses (it holds a secret) is recorded, and landed, under its name redacted."""
        try:
            self._record(actor, cause)
        except SecretInName:
            self.result = Applied(skipped=self.result.skipped, links_split=self.result.links_split)
            self._secret_names_aside()
            self._record(actor, cause)

    def _secret_names_aside(self) -> None:
        redactor = self.ledger.redactor
        if redactor is None:
            return
        taken = {plan.rel for plan in self._plans}
        for i, plan in enumerate(self._plans):
            if holds_secret(redactor, str(self.root / plan.rel)):
                new_rel = safe_rel(redactor, self.root, plan.rel,
                                   lambda r: r in taken or os.path.lexists(self.root / r))
                taken.add(new_rel)
                self.result.renamed.append(new_rel)
                self._plans[i] = replace(plan, land_as=new_rel)
        self._made_dirs = [(rel, mode) for rel, mode in self._made_dirs
                           if not holds_secret(redactor, str(self.root / rel))]  # its files land elsewhere

    def _record(self, actor: str, cause: int | None) -> None:
        entries: list[FileChange | Snapshot] = []
        for plan in self._plans:
            path = str(self.root / plan.shown)
            last = self.ledger.last_write(path)
            before = plan.before
            if last is not None and last.seq > self.since_seq:
                self.result.conflicts.append(Conflict(plan.rel, last.actor, last.seq))
            elif self._changed_meanwhile(plan) and (last is None or last.after != before.digest):
                entries.append(FileChange(actor=OUTSIDE, path=path,
                                          before=self.known(plan.rel) if last is None else last.after,
                                          after=before.digest, cause=None, stored=before.stored,
                                          mode=before.mode))
                self.result.conflicts.append(Conflict(plan.rel, OUTSIDE, 0))
            stored = before.stored and plan.after.stored
            entries.append(FileChange(actor=actor, path=path, before=before.digest, after=plan.after.digest,
                                      cause=cause, mode=before.mode, stored=stored,
                                      was_link=before.link, is_link=plan.after.link))
            same = before.digest == plan.after.digest and before.link == plan.after.link
            kind = ("deleted" if plan.source is None else "created" if before.digest is None
                    else "touched" if same and before.mode == plan.after.mode
                    else "mode" if same else "modified")
            self.result.changes.append((plan.shown, "link " + kind if plan.after.link or before.link else kind))
            if plan.ignored:
                self.result.ignored.append(plan.shown)
            elif not stored:
                self.result.hash_only.append(plan.shown)
                if not before.stored:
                    self.result.not_undoable.append(plan.shown)
        entries.append(Snapshot(actor=actor, root=str(self.root), cause=cause, files=0,
                                changed=len(self.result.changes), overlay=True))
        stored_entries = self.ledger.append_with_blobs(entries, self._blobs)
        self._blobs = {}
        snapshot = stored_entries.pop()
        assert isinstance(snapshot, Snapshot)
        self.result.snapshot = snapshot
        self.result.entries = [e for e in stored_entries if isinstance(e, FileChange) and e.actor != OUTSIDE]
        outside = {e.path: e.seq for e in stored_entries if isinstance(e, FileChange) and e.actor == OUTSIDE}
        self.result.conflicts = [Conflict(c.rel, c.by, outside.get(str(self.root / c.rel), c.seq))
                                 for c in self.result.conflicts]

    def _changed_meanwhile(self, plan: _Plan) -> bool:
        st = _lstat(self.root / plan.rel)
        return st is not None and st.st_ctime_ns >= self.start_ns

    def land(self) -> None:
        """Make the real workspace hold what the layer holds, as recorded: deletions, folders, then files.
        Every step walks from the open root without following links (``landing``); a change that cannot
        land as recorded is left out and listed in ``failed``."""
        ws = Workspace(self.root)
        with landing.Folders(ws) as real:
            for plan in self._plans:
                if plan.source is None:
                    self._attempt(plan.shown, partial(_delete, real, plan))
        for rel in sorted(set(self._deleted_dirs), key=lambda r: -r.count("/")):
            if not any(f == rel or f.startswith(rel + "/") for f, _ in self.result.failed):
                self._attempt(rel, partial(landing.remove_folder, ws, rel))
        for rel, mode in sorted(self._made_dirs, key=lambda d: d[0].count("/")):
            self._attempt(rel, partial(landing.make_folder, ws, rel, mode))
        for rel, mode in self._dir_modes:
            self._attempt(rel, partial(landing.set_mode, ws, rel, mode))
        with landing.Folders(Workspace(self.upper)) as upper, landing.Folders(ws) as real, \
                landing.Folders(ws, create=True) as renamed:
            for plan in self._plans:
                if plan.source is not None and plan.after.ident is not None:
                    self._attempt(plan.shown, partial(_put, upper, real if plan.land_as is None else renamed, plan))
                if plan.source is not None and plan.land_as is not None and plan.before.ident is not None:
                    # the secret-named file the command changed now lives under the redacted name only
                    self._attempt(plan.shown, partial(_delete, real, plan))

    def _attempt(self, rel: str, action: Callable[[], object]) -> None:
        try:
            action()
        except NotAsRecorded as exc:
            self.result.failed.append((rel, exc.why))
        except ToolFailure as exc:
            self.result.failed.append((rel, exc.message))
        except OSError as exc:
            self.result.failed.append((rel, exc.strerror or str(exc)))


def _delete(real: landing.Folders, plan: _Plan) -> None:
    landing.delete(real.place(plan.rel), plan.before.ident)


def _put(upper: landing.Folders, real: landing.Folders, plan: _Plan) -> None:
    assert plan.after.ident is not None
    landing.put(upper.place(plan.rel), real.place(plan.shown), plan.after.ident, plan.after.digest,
                link=plan.after.link, before=None if plan.land_as else plan.before.ident)


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _opaque(path: str) -> bool:
    for name in _OPAQUE:
        try:
            if os.getxattr(path, name, follow_symlinks=False) == b"y":
                return True
        except OSError:
            continue
    return False


def apply_upper(root: Path, upper: Path, ledger: "Ledger", *, actor: str, cause: int | None,
                ignores: Callable[[str, bool], bool], excluded: frozenset[str] = frozenset(), max_blob: int,
                since_seq: int, start_ns: int, known: Callable[[str], str | None] = lambda rel: None,
                recorded: Callable[[Path], None] | None = None) -> Applied:
    """Read ``upper``, record its changes to ``root`` as ``actor``'s, then land them. ``recorded`` is
    called with the layer between the two (a test plants a link there)."""
    layer = UpperLayer(root, upper, ledger, ignores=ignores, excluded=excluded, max_blob=max_blob,
                       since_seq=since_seq, start_ns=start_ns, known=known)
    layer.read()
    layer.record(actor, cause)
    if recorded is not None:
        recorded(upper)
    layer.land()
    return layer.result
