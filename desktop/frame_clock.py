"""One clock that paces every view's redraws, a few views per turn of the event loop.

Views that batch updates (a transcript's streamed text, the process table's
changed rows, the ledger's new entries) ask for a frame with ``request``;
the clock runs each requested callback once, ``delay_ms`` later (a frame,
about 30 ms, by default; a window in the background asks for a slower
frame). When many views are due at once they are not all redrawn in one
go: a callback only changes a view, and Qt lays out and paints every
changed window together in its next pass, so twenty windows flushed at
once become one long stall however cheap each flush was. The clock runs
due callbacks, earliest first, until ``budget_ms`` is spent or
``per_pass`` of them have run, then lets the event loop paint those few
and carries on. A callback whose change costs Qt several ordinary ones
(a finished reply becoming a label) says so with ``cost`` and gets a pass
of its own. Twenty windows that fall due together are so staggered
across passes, and stay staggered (each asks again when its next text
arrives); under overload frames stretch, the loop does not stall.
"""

from __future__ import annotations

import time
from typing import Callable

import shiboken6
from PySide6.QtCore import QObject, QTimer

FRAME_MS = 30
BACKGROUND_FRAME_MS = 100  # what a window that is not the active one asks for
# Views changed per pass, and the time the pass may take: Qt lays out and repaints every view a pass
# changed before the loop turns again. Measured with the kernel in its own process (ui_bench, twenty
# windows streaming, 2026-12-01): 4 views per pass stalled the loop 20-30 ms (p99), 2 views 13-21 ms,
# 1 view 9-10 ms, with more text shown per second, not less.
BUDGET_MS = 3.0
PER_PASS = 1


class FrameClock(QObject):
    def __init__(self, parent: QObject | None = None, budget_ms: float = BUDGET_MS,
                 per_pass: int = PER_PASS) -> None:
        super().__init__(parent)
        self.budget_s = budget_ms / 1000
        self.per_pass = per_pass
        self._due: dict[object, tuple[float, Callable[[], None], int]] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._run)

    def request(self, key: object, callback: Callable[[], None], delay_ms: int = FRAME_MS, cost: int = 1) -> None:
        """Run ``callback`` once, ``delay_ms`` from now (a repeated request before then changes nothing).

        ``cost`` is how many ordinary view changes it weighs (``per_pass`` of them fill a pass)."""
        if key in self._due:
            return
        self._due[key] = (time.perf_counter() + delay_ms / 1000, callback, cost)
        self._schedule()

    def cancel(self, key: object) -> None:
        self._due.pop(key, None)

    def pending(self, key: object) -> bool:
        return key in self._due

    @property
    def idle(self) -> bool:
        """True when no callback is waiting for its frame."""
        return not self._due

    def _schedule(self) -> None:
        if not self._due:
            self._timer.stop()
            return
        wait = min(due for due, _, _ in self._due.values()) - time.perf_counter()
        ms = max(0, int(wait * 1000 + 0.999))
        if not self._timer.isActive() or self._timer.remainingTime() > ms:
            self._timer.start(ms)

    def _run(self) -> None:
        """One pass: the earliest due callbacks, within the time budget and ``per_pass`` cost (at least one)."""
        now = time.perf_counter()
        deadline = now + self.budget_s
        spent = 0
        for key, (due, callback, cost) in sorted(self._due.items(), key=lambda item: item[1][0]):
            if due > now or time.perf_counter() > deadline or (spent and spent + cost > self.per_pass):
                break
            del self._due[key]
            if isinstance(key, QObject) and not shiboken6.isValid(key):
                continue  # its view was closed and deleted before its frame came
            callback()
            spent += cost
        self._schedule()
