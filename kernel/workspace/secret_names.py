"""A command made a file whose name holds a secret: it is kept, and recorded, under the name redacted.

The ledger keeps paths exactly (undo needs them) and refuses to write one that
holds a held key or a token (``ledger.SecretInName``). The file tools ask
before writing, so they simply refuse; a shell command writes first. Refusing
its whole record would leave every change it made unrecorded, so instead such
a file is moved to the same name with each secret replaced by its marker
(``leak-[REDACTED:held-secret].txt``) and recorded there: created there,
changed there (its earlier bytes restorable there), or deleted there. Undo
then works on that name. Only regular files and links are recorded, so a
folder that holds a secret in its name is left where it is, emptied of what
was moved out of it. On an overlay nothing has landed yet, so the file lands
under the redacted name directly and the secret-named one is removed.

Moves walk from the open workspace root without following links and never
replace an existing file (a hard link to the new name, then the old name
unlinked), so a racing program cannot redirect or clobber anything.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Protocol

from . import walk
from .root import Workspace

_MIN_TEXT = 8  # as ledger.redaction: a shorter name is not examined


class Redacts(Protocol):
    def redact(self, text: str) -> tuple[str, int]: ...


def holds_secret(redactor: Redacts | None, path: str) -> bool:
    """Whether the ledger would refuse ``path`` as a name holding a secret."""
    return redactor is not None and len(path) >= _MIN_TEXT and redactor.redact(path)[1] > 0


def safe_rel(redactor: Redacts, root: Path, rel: str, taken: Callable[[str], bool]) -> str:
    """``rel`` with every secret in each of its names replaced by its marker; a name no one has (``taken``
    says which are in use). A secret across a ``/`` cannot be cut per name: then a fresh name at the root."""
    parts = [redactor.redact(part)[0] if len(part) >= _MIN_TEXT else part for part in rel.split("/")]
    candidate = "/".join(parts)
    if any(p in ("", ".", "..") for p in parts) or holds_secret(redactor, str(root / candidate)):
        candidate = f"redacted-name-{os.urandom(6).hex()}"
    while taken(candidate):
        candidate = f"{candidate}.{os.urandom(3).hex()}"
    return candidate


def move_aside(ws: Workspace, rel: str, new_rel: str) -> None:
    """Give the file (or link) ``rel`` the name ``new_rel`` instead, never replacing one (OSError if it cannot)."""
    with walk.place(ws, ws.root / rel) as source, walk.place(ws, ws.root / new_rel, create=True) as target:
        os.link(source.name, target.name, src_dir_fd=source.dir_fd, dst_dir_fd=target.dir_fd, follow_symlinks=False)
        os.unlink(source.name, dir_fd=source.dir_fd)
    parent = str(Path(rel).parent)
    if parent != ".":
        try:  # a folder named with the secret, now empty: gone too (folders are not recorded)
            with walk.place(ws, ws.root / parent) as folder:
                os.rmdir(folder.name, dir_fd=folder.dir_fd)
        except OSError:
            pass
