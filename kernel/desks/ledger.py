"""The ledger desk: the ledger's window (pages, what an entry caused, diffs, undo) and its check at start."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Sequence

from ledger import USER

from ..api import LedgerFilter
from ..core.checking import Checking
from ..core.errors import KernelError

if TYPE_CHECKING:
    from ledger import Entry, Integrity, Ledger, UndoReport


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

    def undo(self, after_seq: int, *, only_actor: str | None = None, dry_run: bool = False) -> UndoReport:
        """Reverse the file changes after ``after_seq``. Not while the check at start runs: undo writes files
        from what the record says, so it waits until the record is known to hold (a dry run does not write)."""
        if isinstance(self._integrity, Checking) and not dry_run:
            raise KernelError("the ledger is still being checked (it started a moment ago): undo in a moment, "
                              "once the status line says whether it checked out")
        return self._ledger.undo(after_seq, by=USER, only_actor=only_actor, dry_run=dry_run)
