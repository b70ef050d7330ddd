"""The workspace root, and the rule that file tools stay inside it.

A path from the model is taken relative to the root, resolved (``a/../b`` is
fine), and refused if it lands outside: through ``..``, as an absolute path
elsewhere, or through a symlink that points out. The last component is
resolved too, so a link inside the workspace that points outside is refused.
A plain relative path with no symlink in it (the usual case) is checked one
component at a time below the root instead of through ``realpath``.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import ToolFailure


@dataclass(frozen=True)
class Workspace:
    root: Path

    @classmethod
    def at(cls, root: str | os.PathLike[str]) -> "Workspace":
        path = Path(root).expanduser().resolve()
        if not path.is_dir():
            raise ToolFailure(f"the workspace {path} is not a folder")
        return cls(path)

    def resolve(self, rel: str | None) -> Path:
        """The absolute, resolved path for ``rel``; ToolFailure when it leaves the workspace."""
        rel = "." if rel in (None, "") else rel
        if "\x00" in rel:
            raise ToolFailure("a path cannot contain a NUL character")
        plain = _plain_below(self.root, rel)
        if plain is not None:
            return plain
        candidate = Path(rel).expanduser()
        if not candidate.is_absolute():
            candidate = self.root / candidate
        resolved = Path(os.path.realpath(candidate))
        if resolved != self.root and self.root not in resolved.parents:
            raise ToolFailure(f"{rel} is outside the workspace ({self.root}); use a path inside it")
        return resolved

    def relative(self, path: Path) -> str:
        """How to show ``path`` to the model and the user: relative to the root."""
        try:
            rel = path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)
        return rel or "."


def _plain_below(root: Path, rel: str) -> Path | None:
    """The resolved path for a plain relative ``rel`` (no ``~``, no ``..``) when no component of it
    is a symlink: what realpath would give, with one lstat per component below the (already
    resolved) root instead of one per component from ``/``. None: take the general way."""
    if rel.startswith(("/", "~")):
        return None
    parts = [p for p in rel.split("/") if p and p != "."]
    if ".." in parts:
        return None
    path = str(root)
    exists = True
    for part in parts:
        path = os.path.join(path, part)
        if exists:
            try:
                if stat.S_ISLNK(os.lstat(path).st_mode):
                    return None
            except (FileNotFoundError, NotADirectoryError):
                exists = False  # the rest is taken as named, as realpath does
            except OSError:
                return None
    return Path(path)
