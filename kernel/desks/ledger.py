"""The ledger desk: the ledger's window (pages, what an entry caused, diffs, undo) and its check at start."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Sequence

from ledger import USER

from ..api import LedgerFilter

if TYPE_CHECKING:
    from ledger import Entry, Integrity, Ledger, UndoReport


class LedgerWindow:
    """``kernel.api.LedgerDesk`` in process: reads the ledger; writes only undo, as the user."""

    def __init__(self, ledger: Ledger, integrity: Integrity) -> None:
        """``integrity``: what ``ledger.check_at_start()`` found."""
        self._ledger = ledger
        self._integrity = integrity

    def page(self, filters: LedgerFilter = LedgerFilter(), *, before: int | None = None,
             after: int | None = None, limit: int = 200) -> builtins.list[Entry]:
        """Entries newest first, with seq < ``before`` and > ``after``, matching ``filters``."""
        return self._ledger.page(before=before, after=after, limit=limit, actor=filters.actor,
                                 kind=filters.kind, path=filters.path)

    def integrity(self) -> Integrity:
        """What the check at start found: Intact (verified up to a seq) or Broken (first broken seq,
        reason). The full check is ``agentdesk ledger verify``."""
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

    def undo(self, after_seq: int, *, only_actor: str | None = None, dry_run: bool = False) -> UndoReport:
        return self._ledger.undo(after_seq, by=USER, only_actor=only_actor, dry_run=dry_run)
