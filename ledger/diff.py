"""A file change as a unified diff, for people: the ledger view, the Ask window, previews.

Rendering is kept out of the store: it only needs to read one entry and its
two blobs, so it takes anything that can (``DiffSource``). Contents that
were not kept (too large, or ignored when they changed), or are not UTF-8,
are described rather than shown.
"""

from __future__ import annotations

import difflib
from typing import Protocol

from .entries import Entry, FileChange
from .errors import NotAFileChange


class DiffSource(Protocol):
    """What rendering a diff reads: one entry, and blobs by hash."""

    def get(self, seq: int) -> Entry: ...
    def has_blob(self, digest: str) -> bool: ...
    def blob(self, digest: str) -> bytes: ...


def render(source: DiffSource, seq: int, context: int = 3) -> str:
    """A unified diff of the file change ``seq`` (binary and unstored contents are said, not shown)."""
    entry = source.get(seq)
    if not isinstance(entry, FileChange):
        raise NotAFileChange(seq, entry.KIND)
    sides = []
    for digest in (entry.before, entry.after):
        if digest is None:
            sides.append(b"")
        elif not source.has_blob(digest):
            return f"(contents of {entry.path} were not kept, only their hash {digest[:12]})\n"
        else:
            sides.append(source.blob(digest))
    try:
        a, b = (s.decode("utf-8").splitlines(keepends=True) for s in sides)
    except UnicodeDecodeError:
        return f"Binary file {entry.path} changed ({len(sides[0])} -> {len(sides[1])} bytes)\n"
    old = "/dev/null" if entry.before is None else f"a{entry.path}"
    new = "/dev/null" if entry.after is None else f"b{entry.path}"
    return "".join(difflib.unified_diff(a, b, old, new, n=context))
