"""Today's spend: tokens and money of the provider requests made since local midnight.

Counted once from the ledger (``request`` entries of today), then kept up to
date from each ``request`` entry as it is appended, and counted afresh when
the day changes, so the status line can ask on every usage update for free.
"""

from __future__ import annotations

from typing import Callable, Mapping

from ledger import Entry, Ledger, ModelRequest

from ..core.summaries import Spend
from ..core.clock import local_midnight
from .mixed import priced_as
from .prices import cost_of

Prices = Callable[[], Mapping[str, Mapping[str, Mapping[str, float]]]]


class SpendToday:
    def __init__(self, ledger: Ledger, prices: Prices, now: Callable[[], float]) -> None:
        self._ledger, self._prices, self._now = ledger, prices, now
        self._day = -1.0
        self._spend = Spend()

    def today(self) -> Spend:
        day = local_midnight(self._now())
        if day != self._day:
            self._day, self._spend = day, Spend()
            for entry in self._ledger.since("request", day):
                self.note(entry)
        return self._spend

    def note(self, entry: Entry) -> None:
        """Count a newly appended entry (anything but a request of today is ignored)."""
        if not isinstance(entry, ModelRequest) or entry.ts < self._day:
            return
        i, o, cached, written = (_count(v) for v in (entry.input_tokens, entry.output_tokens,
                                                       entry.cache_read_tokens, entry.cache_write_tokens))
        tokens = i + o
        named = isinstance(entry.provider, str) and isinstance(entry.model, str)
        table = self._prices()
        provider, model = priced_as(table, entry.provider, entry.model, entry.served_provider, entry.served_model)
        cost = cost_of(table, provider, model, i, o, cached, written) if named else None
        s = self._spend
        self._spend = Spend(s.tokens + tokens, s.cost + (cost or 0.0), s.unpriced_tokens + (tokens if cost is None else 0))


def _count(value: object) -> int:
    """A token count from the record (hostile input: anything but a whole number ≥ 0 counts 0)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
