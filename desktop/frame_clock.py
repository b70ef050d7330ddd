"""One clock that paces every view's redraws, with a time budget per turn of the event loop.

Views that batch updates (a transcript's streamed text, the process table's
changed rows, the ledger's new entries) ask for a frame with ``request``;
the clock runs each requested callback once, ``delay_ms`` later (a frame,
about 30 ms, by default; a window in the background asks for a slower
frame). When many views are due at once they are not all redrawn in one
go, which would hold the event loop for the sum of their costs: the clock
runs due callbacks, earliest first, until ``budget_ms`` is spent, then
yields to the event loop and carries on. Under overload frames stretch; the
loop never stalls for much more than one budget.
"""

from __future__ import annotations

import time
from typing import Callable

import shiboken6
from PySide6.QtCore import QObject, QTimer

FRAME_MS = 30
BACKGROUND_FRAME_MS = 100  # what a window that is not the active one asks for
BUDGET_MS = 6.0


class FrameClock(QObject):
    def __init__(self, parent: QObject | None = None, budget_ms: float = BUDGET_MS) -> None:
        super().__init__(parent)
        self.budget_s = budget_ms / 1000
        self._due: dict[object, tuple[float, Callable[[], None]]] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._run)

    def request(self, key: object, callback: Callable[[], None], delay_ms: int = FRAME_MS) -> None:
        """Run ``callback`` once, ``delay_ms`` from now (a repeated request before then changes nothing)."""
        if key in self._due:
            return
        self._due[key] = (time.perf_counter() + delay_ms / 1000, callback)
        self._schedule()

    def cancel(self, key: object) -> None:
        self._due.pop(key, None)

    def pending(self, key: object) -> bool:
        return key in self._due

    def _schedule(self) -> None:
        if not self._due:
            self._timer.stop()
            return
        wait = min(due for due, _ in self._due.values()) - time.perf_counter()
        ms = max(0, int(wait * 1000 + 0.999))
        if not self._timer.isActive() or self._timer.remainingTime() > ms:
            self._timer.start(ms)

    def _run(self) -> None:
        now = time.perf_counter()
        deadline = now + self.budget_s
        for key, (due, callback) in sorted(self._due.items(), key=lambda item: item[1][0]):
            if due > now or time.perf_counter() > deadline:
                break
            del self._due[key]
            if isinstance(key, QObject) and not shiboken6.isValid(key):
                continue  # its view was closed and deleted before its frame came
            callback()
        self._schedule()
