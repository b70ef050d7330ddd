"""The ledger desk: the ledger's window (pages, what an entry caused, diffs, undo) and its check at start."""

from __future__ import annotations

import asyncio
import base64
import builtins
from typing import TYPE_CHECKING, Sequence

from ledger import USER

from ..api import LedgerFilter
from ..core.checking import Checking
from ..core.errors import KernelError

if TYPE_CHECKING:
    from ledger import Entry, Integrity, Ledger, UndoReport

    from ..images.thumbnail import Thumbnail


class LedgerWindow:
    """``kernel.api.LedgerDesk`` in process: reads the ledger; writes only undo, as the user."""

    def __init__(self, ledger: Ledger, integrity: Integrity | Checking) -> None:
        """``integrity``: what ``ledger.check_at_start()`` found, or ``Checking`` while it runs (the kernel
        service checks after it serves: kernel/service/start_checks.py), until ``checked`` gives the result."""
        self._ledger = ledger
        self._integrity = integrity

    def checked(self, found: Integrity) -> None:
        """The check at start answered."""
        self._integrity = found

    def page(self, filters: LedgerFilter = LedgerFilter(), *, before: int | None = None,
             after: int | None = None, limit: int = 200) -> builtins.list[Entry]:
        """Entries newest first, with seq < ``before`` and > ``after``, matching ``filters``."""
        return self._ledger.page(before=before, after=after, limit=limit, actor=filters.actor,
                                 kind=filters.kind, path=filters.path)

    def integrity(self) -> Integrity | Checking:
        """What the check at start found: Intact (verified up to a seq) or Broken (first broken seq,
        reason), or Checking while it runs. The full check is ``agentdesk ledger verify``."""
        return self._integrity

    def count(self) -> int:
        return self._ledger.count()

    def last_seq(self) -> int:
        return self._ledger.last_seq()

    def caused_by(self, seq: int) -> builtins.list[Entry]:
        """What a tool call (its result, its file changes) or an undo (its reversals) caused."""
        return self._ledger.caused_by(seq)

    def undone_by(self, seqs: Sequence[int]) -> dict[int, int]:
        """Which of these file changes are undone now, and by which undo entry."""
        return self._ledger.undone_by(seqs)

    def diff(self, seq: int) -> str:
        """A unified diff of one file change."""
        return self._ledger.diff(seq)

    async def picture(self, sha256: str) -> str | None:
        """A stored picture's bytes as base64 (thumbnails in tool cards and the ledger's detail), or None when
        the blob store has no such blob or it is not a picture (PNG, JPEG, WebP, GIF): other blobs are files'
        old contents, which a view reads as diffs, never as bytes."""
        if not (isinstance(sha256, str) and len(sha256) == 64 and all(c in "0123456789abcdef" for c in sha256)):
            return None
        return await asyncio.to_thread(self._picture, sha256)

    def _picture(self, sha256: str) -> str | None:
        from ledger.errors import CorruptBlob, UnknownBlob

        from ..images.fit import sniff

        try:
            data = self._ledger.blob(sha256)
        except (UnknownBlob, CorruptBlob):
            return None
        if sniff(data[:32]) not in ("png", "jpeg", "webp", "gif"):
            return None
        return base64.b64encode(data).decode("ascii")

    async def thumbnail(self, sha256: str, edge: int = 256) -> Thumbnail | None:
        """A small picture of a stored blob (the ledger's detail and the undo confirmation show a file's
        before and after): PNG at most ``edge`` px a side, or an SVG cleaned of scripts and outside references
        (``kernel.images.thumbnail``); None when the blob is unknown, damaged or not a picture. Bounded: the
        file itself never crosses the socket."""
        if not (isinstance(sha256, str) and len(sha256) == 64 and all(c in "0123456789abcdef" for c in sha256)):
            return None
        if isinstance(edge, bool) or not isinstance(edge, int):
            raise ValueError("a thumbnail's edge is a whole number of pixels")
        return await asyncio.to_thread(self._thumbnail, sha256, edge)

    def _thumbnail(self, sha256: str, edge: int) -> Thumbnail | None:
        from ledger.errors import CorruptBlob, UnknownBlob

        from ..images.thumbnail import thumbnail

        try:
            data = self._ledger.blob(sha256)
        except (UnknownBlob, CorruptBlob):
            return None
        return thumbnail(data, edge)

    def undo(self, after_seq: int, *, only_actor: str | None = None, dry_run: bool = False) -> UndoReport:
        """Reverse the file changes after ``after_seq``. Not while the check at start runs: undo writes files
        from what the record says, so it waits until the record is known to hold (a dry run does not write)."""
        if isinstance(self._integrity, Checking) and not dry_run:
            raise KernelError("the ledger is still being checked (it started a moment ago): undo in a moment, "
                              "once the status line says whether it checked out")
        return self._ledger.undo(after_seq, by=USER, only_actor=only_actor, dry_run=dry_run)
