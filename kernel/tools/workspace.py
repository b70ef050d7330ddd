"""The workspace root, and the rule that file tools stay inside it.

A path from the model is taken relative to the root, resolved (``a/../b`` is
fine), and refused if it lands outside: through ``..``, as an absolute path
elsewhere, or through a symlink that points out. The last component is
resolved too, so a link inside the workspace that points outside is refused.
"""

from __future__ import annotations

import os
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
