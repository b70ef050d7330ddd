"""An agent's taint: it has read untrusted content, and that only ever grows.

The executor records an ``untrusted`` ledger entry (source, time, content
hash) for every untrusted result before the model sees it; ``taint_from``
rebuilds every agent's taint from those entries, so an agent rebuilt after
a restart is exactly as tainted as it was (the kernel's restart rebuild
calls it on the ledger's entries).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ledger import Entry, UntrustedSeen


@dataclass(frozen=True)
class Taint:
    """Why an agent is tainted: the first untrusted source it read, when, and how many it has read."""

    source: str
    since: float
    seq: int        # the first ``untrusted`` entry
    count: int = 1

    @property
    def reason(self) -> str:
        more = f" (and {self.count - 1} more)" if self.count > 1 else ""
        return f"read untrusted content from {self.source}{more}"

    def seen(self, count: int = 1) -> "Taint":
        """The same taint after reading ``count`` more untrusted results (it never shrinks)."""
        return Taint(self.source, self.since, self.seq, self.count + count)


def taint_from(entries: Iterable[Entry]) -> dict[str, Taint]:
    """Every agent's taint, from ledger entries in seq order (any entries; only ``untrusted`` ones count)."""
    out: dict[str, Taint] = {}
    for entry in entries:
        if isinstance(entry, UntrustedSeen):
            known = out.get(entry.actor)
            out[entry.actor] = known.seen() if known is not None else Taint(entry.source, entry.ts, entry.seq)
    return out
