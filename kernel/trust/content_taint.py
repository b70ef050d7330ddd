"""Taint that follows content: bytes a tainted agent wrote stay untrusted wherever they are read.

An agent's taint (``taint.py``) is about what it read; a file is how such content reaches the next
agent ("taint laundering": agent A reads a hostile page and writes notes.md or AGENTS.md, agent B
reads them as the workspace's own words). The rule is about a file's CURRENT bytes: they are
tainted when their sha256 is the ``after`` of an ``fs.write`` made by an actor that had already read
untrusted content (its first ``untrusted`` entry precedes the write). The ledger records every
write before it lands (file tools, changes captured from shell commands, undo reversals), so a
copy, a file a command made, or an undo that brings such bytes back is caught, and a restart
changes nothing: the ledger is the only state. Anyone writing other bytes (the user, a clean
agent) clears it; identical bytes stay tainted whoever wrote them last (a tainted agent copying a
clean file makes those bytes suspect too: conservative, and an edit clears it). Empty content
carries nothing and is never tainted.

Shell commands: a command may read any file, so its output is untrusted when the workspace holds
tainted content at its start or end (files whose recorded writes left tainted bytes and that still
hold them). That is conservative: an ``ls`` in such a workspace taints too. Content copied by
programs outside Agentdesk to a path never recorded is not followed by this rule (fs_read still
catches it: it hashes what it reads). Measured 2026-12-01 (benchmarks/content_taint_bench.py, 100k
entries, 2,211 tainted writes, a 2-core machine at load ~7): the content probe 30-85 us; a shell
command's check 0.7 ms (``TaintedFiles``: the first one after a start pays one 70 ms query, later ones
read only what was appended since); fs_read's whole-file hash about 2 ms per MB.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

from ledger import FileChange, UntrustedSeen
from ledger.blobs import digest_fd
from ledger.queries import Queries

EMPTY = hashlib.sha256(b"").hexdigest()
HASH_MAX_BYTES = 64 * 1024 * 1024  # larger files read by fs_read are judged by their path (about 2 ms per MB hashed)
LIST_FOLDER_FROM = 16  # places in one folder from which listing it beats opening each
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True)
class ContentTaint:
    """Why some content is untrusted: ``name`` (as the reader saw it) holds bytes ``writer`` wrote while
    tainted, in the ``fs.write`` entry ``seq``."""

    name: str
    writer: str
    seq: int

    @property
    def source(self) -> str:
        """The source an ``untrusted`` entry and the markers name (``notes.md, written by tainted agent a7 (#812)``)."""
        return f"{self.name}, written by tainted agent {self.writer} (#{self.seq})"


def content_taint(ledger: Queries, digest: str, name: str) -> ContentTaint | None:
    """Whether content with sha256 ``digest``, shown as ``name``, is tainted (one indexed query)."""
    if digest == EMPTY:
        return None
    write = ledger.tainted_write(digest)
    return None if write is None else ContentTaint(name, write.actor, write.seq)


def bytes_taint(ledger: Queries, data: bytes, name: str) -> ContentTaint | None:
    return content_taint(ledger, hashlib.sha256(data).hexdigest(), name) if data else None


def fd_taint(ledger: Queries, fd: int, name: str, path: str | None = None) -> ContentTaint | None:
    """The same for an open file, hashed whole (``pread``: the caller's position is kept). A file over
    ``HASH_MAX_BYTES`` (a read shows only its start) is judged by the last recorded write to ``path``
    instead of being hashed on every read: a tainted agent's huge file is still caught, a huge copy
    made outside Agentdesk is not."""
    size = os.fstat(fd).st_size
    if size > HASH_MAX_BYTES and path is not None:
        last = ledger.last_write(path)
        return None if last is None or last.after is None else content_taint(ledger, last.after, name)
    return content_taint(ledger, digest_fd(fd), name)


Folders = dict[str, dict[str, set[str]]]  # folder → file name → tainted hashes written there


class TaintedFiles:
    """Where bytes tainted agents wrote were put, by folder, kept up to date from the ledger.

    The first call runs ``Queries.tainted_paths`` once; later calls read only the ``untrusted`` and
    ``fs.write`` entries appended since (the ledger only grows, so the answer only grows too), which
    keeps a shell command's check flat however long the ledger gets."""

    def __init__(self, ledger: Queries) -> None:
        self.ledger = ledger
        self._seq = 0
        self._since: dict[str, int] = {}   # actor → its first ``untrusted`` entry
        self._folders: Folders = {}
        self._known: set[str] = set()      # every tainted hash
        self._lock = threading.Lock()

    def under(self, root: Path) -> Folders:
        """The folders under ``root`` (itself included) a tainted hash was written to, with those files."""
        prefix = str(root).rstrip("/")
        with self._lock:
            self._catch_up()
            return {folder: dict(names) for folder, names in self._folders.items()  # sets only ever grow
                    if folder == prefix or folder.startswith(prefix + "/")}

    def _catch_up(self) -> None:
        last = self.ledger.last_seq()
        if last == self._seq:
            return
        if self._seq == 0:  # entries appended meanwhile are read again next time: adding is idempotent
            for path, digest in self.ledger.tainted_paths(""):
                _add(self._folders, path, digest)
                self._known.add(digest)
            self._since = {actor: first for actor, (first, *_rest) in self.ledger.per_actor(UntrustedSeen.KIND).items()}
            self._seq = last
            return
        for entry in self.ledger.scan((UntrustedSeen.KIND, FileChange.KIND), after=self._seq):
            if isinstance(entry, UntrustedSeen):
                self._since.setdefault(entry.actor, entry.seq)
            elif isinstance(entry, FileChange) and entry.after is not None:
                if entry.after not in self._known and self._since.get(entry.actor, entry.seq) < entry.seq:
                    self._known.add(entry.after)  # newly tainted bytes: every place they were written before too
                    for path in self.ledger.places_of(entry.after):
                        _add(self._folders, path, entry.after)
                if entry.after in self._known:
                    _add(self._folders, entry.path, entry.after)
        self._seq = last


def _add(folders: Folders, path: str, digest: str) -> None:
    folder, name = os.path.split(path)
    folders.setdefault(folder, {}).setdefault(name, set()).add(digest)


def workspace_taint(ledger: Queries, root: Path, files: TaintedFiles | None = None) -> ContentTaint | None:
    """The first file under ``root`` that still holds tainted bytes a recorded write left there, or None
    (``files``: a ``TaintedFiles`` kept between calls; without it, one query of the whole ledger)."""
    if files is not None:
        folders = files.under(root)
    else:
        folders = {}
        for path, digest in ledger.tainted_paths(str(root)):
            _add(folders, path, digest)
    for folder in sorted(folders):
        for name in _present(folder, folders[folder]):
            path = os.path.join(folder, name)
            current = _current_digest(path)
            if current is not None and current != EMPTY and current in folders[folder][name]:
                found = ledger.tainted_write(current)
                if found is not None:
                    return ContentTaint(os.path.relpath(path, root), found.actor, found.seq)
    return None


def _present(folder: str, names: dict[str, set[str]]) -> list[str]:
    """The names that may be there: a folder holding many of them is listed once instead of opening
    each (most places a busy ledger remembers are gone)."""
    if len(names) < LIST_FOLDER_FROM:
        return sorted(names)
    try:
        there = set(os.listdir(folder))
    except OSError:
        return []
    return sorted(n for n in names if n in there)


def _current_digest(path: str) -> str | None:
    """The sha256 of the regular file at ``path`` now (a link is not followed), or None."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return digest_fd(fd)
    finally:
        os.close(fd)
