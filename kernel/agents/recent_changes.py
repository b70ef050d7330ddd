"""Recent file changes, kept up to date cheaply for every system prompt.

The prompt tells each agent what others changed lately. Asking the ledger
for "the newest changes not by me" before every request would re-read the
same rows each time (and scan past an agent's own writes), so this keeps a
short ring of the newest ``fs.write`` entries and, before each prompt, reads
only the entries appended since it last looked — including those written by
other processes sharing the ledger.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from ledger import FileChange, Ledger

KEEP = 64


@dataclass(frozen=True)
class RecentChange:
    seq: int
    actor: str
    path: str
    verb: str  # created · changed · deleted


class RecentChanges:
    def __init__(self, ledger: Ledger, keep: int = KEEP) -> None:
        self._ledger = ledger
        self._ring: deque[RecentChange] = deque(maxlen=keep)
        self._seen = 0

    def refresh(self) -> None:
        """Take in the file changes appended since the last look (newest first from the ledger)."""
        fresh = self._ledger.page(after=self._seen, kind="fs.write", limit=self._ring.maxlen or KEEP)
        for entry in reversed(fresh):
            if isinstance(entry, FileChange):
                verb = "deleted" if entry.after is None else "created" if entry.before is None else "changed"
                self._ring.append(RecentChange(entry.seq, entry.actor, entry.path, verb))
        if fresh:
            self._seen = fresh[0].seq

    def by_others(self, actor: str, limit: int) -> list[RecentChange]:
        """The newest changes not made by ``actor``, newest first."""
        self.refresh()
        out = []
        for change in reversed(self._ring):
            if change.actor != actor:
                out.append(change)
                if len(out) == limit:
                    break
        return out
