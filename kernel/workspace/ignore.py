"""Which workspace files the snapshot and the outside watcher leave alone.

Version-control metadata, virtual environments, dependency folders and caches
change often, are large, and can be rebuilt; recording them would make every
snapshot slow and every undo noisy. The rules are gitignore syntax (through
``pathspec``): built-in defaults plus the workspace's own ``.agentdeskignore``,
reloaded whenever that file changes. A folder holding ``pyvenv.cfg`` is a
virtual environment whatever its name. Decisions are cached per path until
the rules change, so a snapshot pays for matching only once per new path.

The rules of ``.agentdeskignore`` are a person's to set: an agent's command
that wrote ``*`` there would have hidden the next command's deletions from
the ledger (issue 23). So the file's rules apply only while its current
bytes were not last written by an agent, as the ledger says (``trusted``,
given by the snapshot index); an agent's version takes effect once a person
writes the file (an edit, or an undo of the agent's change). The file itself
is always recorded, whatever the rules say, so the ledger always knows who
wrote it.

One exception overrides every rule: a git folder's ``hooks/`` and ``config``
(and those of its submodules under ``modules/``) are always recorded. They are
code the user's own git later runs on the host, outside any sandbox, so a
change to them must show in the ledger even though the rest of ``.git/``
is not worth recording.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Callable

import pathspec

IGNORE_FILE = ".agentdeskignore"
VENV_MARKER = "pyvenv.cfg"
# Folders nobody means as their work: the snapshot never records them, the file tools' walks skip them.
BUILD_DIRS = (".git", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache")
DEFAULT_PATTERNS = (*(f"{d}/" for d in BUILD_DIRS), ".cache/", ".*.agentdesk")  # the last: files staged by a write
# The walks of fs_list and fs_search (and the stale-file sweep) also skip other version-control and tool
# folders. The snapshot still records those (and skips ``.cache/``): kept as they were, not yet one list.
SKIP_DIRS = frozenset({
    *BUILD_DIRS, ".hg", ".svn", ".bzr", "_darcs", ".jj", "CVS", ".tox", ".nox", ".ruff_cache", ".direnv",
})


def always_tracked(rel: str, is_dir: bool) -> bool:
    """True for the workspace's ``.agentdeskignore``, a git folder, its ``hooks/`` (and everything in it), its
    ``config``, and the same in its modules."""
    if rel == IGNORE_FILE:
        return not is_dir
    parts = rel.split("/")
    if ".git" not in parts:
        return False
    rest = parts[parts.index(".git") + 1:]
    while rest[:1] == ["modules"] and len(rest) >= 3:  # .git/modules/<name>/…: a submodule's git folder
        rest = rest[2:]
    if not rest or rest[0] == "modules" and len(rest) <= 2:
        return is_dir
    return rest[0] == "hooks" or (rest == ["config"] and not is_dir)


class IgnoreRules:
    """The ignore rules of one workspace root. Paths are POSIX, relative to the root."""

    def __init__(self, root: Path, extra_patterns: tuple[str, ...] = (),
                 trusted: Callable[[Path, str], bool] | None = None) -> None:
        """``trusted(path, sha256)``: whether the ignore file's current bytes (their hash) may set rules; by
        default they always may."""
        self.root = root
        self._extra = extra_patterns
        self._trusted = trusted or (lambda path, digest: True)
        self._lock = threading.Lock()
        self._key: tuple[int, int, int] | None = (-1, -1, -1)  # not loaded yet
        self._lines: tuple[str, ...] = ()
        self._digest = ""
        self._applied = False  # whether the file's lines are in the rules now
        self.untrusted = False  # the file is there and its rules are not applied (an agent wrote it)
        self._spec = self._build(())
        self._files: dict[str, bool] = {}
        self._dirs: dict[str, bool] = {}
        self.refresh()

    def _build(self, lines: tuple[str, ...]) -> pathspec.PathSpec:
        return pathspec.GitIgnoreSpec.from_lines([*DEFAULT_PATTERNS, *self._extra, *lines])

    def refresh(self) -> bool:
        """Reload ``.agentdeskignore`` if it changed, and apply its rules only while ``trusted`` says a person
        wrote its bytes (asked each time: the ledger may have learnt who did); True when the rules changed."""
        path = self.root / IGNORE_FILE
        try:
            st = path.stat()
            key: tuple[int, int, int] | None = (st.st_size, st.st_mtime_ns, st.st_ino)
        except OSError:
            key = None
        with self._lock:
            changed = key != self._key
            if changed:
                data = b""
                if key is not None:
                    try:
                        data = path.read_bytes()
                    except OSError:
                        data = b""
                self._key = key
                self._lines = tuple(data.decode("utf-8", errors="replace").splitlines())
                self._digest = hashlib.sha256(data).hexdigest()
            apply = key is not None and self._trusted(path, self._digest)
            self.untrusted = key is not None and not apply
            if not changed and apply == self._applied:
                return False
            self._applied = apply
            self._spec = self._build(self._lines if apply else ())
            self._files = {}
            self._dirs = {}
            return True

    @property
    def file_cache(self) -> dict[str, bool]:
        """Decisions made so far for files (a fast path for the snapshot's hot loop)."""
        return self._files

    def ignores_dir(self, rel: str) -> bool:
        """True when the folder ``rel`` is ignored by a pattern (the venv marker is checked by walkers)."""
        hit = self._dirs.get(rel)
        if hit is None:
            hit = self._dirs[rel] = not always_tracked(rel, True) and self._spec.match_file(rel + "/")
        return hit

    def ignores_file(self, rel: str) -> bool:
        hit = self._files.get(rel)
        if hit is None:
            hit = self._files[rel] = not always_tracked(rel, False) and self._spec.match_file(rel)
        return hit

    def ignores_path(self, rel: str, is_dir: bool = False) -> bool:
        """For one path seen alone (a watcher event): is it, or any folder above it, ignored?"""
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            if self.ignores_dir(folder) or os.path.exists(self.root / folder / VENV_MARKER):
                return True
        if is_dir:
            return self.ignores_dir(rel) or os.path.exists(self.root / rel / VENV_MARKER)
        return self.ignores_file(rel)
