"""Cyclic garbage is collected on the Qt thread, never on another one.

Python's cyclic collector runs in whichever thread happens to allocate past its threshold: the thread
``asyncio.to_thread`` starts the kernel in, the web converter, an executor. When it frees a Qt wrapper left
in a reference cycle there, the C++ object is destroyed outside its thread. Measured here
(2026-12-03, PySide6 6.x): three hundred shown widgets with timers, collected from a worker thread, hung
the process; a CI worker died the same way mid-suite. So the automatic collector is switched off and a
timer on the Qt thread runs the same generational collections CPython would (pyqtgraph's
``GarbageCollector`` does the same). Only ``gc`` is needed to decide; Qt is imported to install the timer.
"""

from __future__ import annotations

import gc
from typing import Any

INTERVAL_MS = 250  # a generation-0 collection takes well under a millisecond; the check itself less


def collect_due() -> int:
    """Collect each generation whose count has passed its threshold, as CPython would; the number
    of generations collected (0 when nothing was due)."""
    thresholds = gc.get_threshold()
    collected = 0
    for generation in range(3):
        if gc.get_count()[generation] <= thresholds[generation]:
            break
        gc.collect(generation)  # also counts one collection towards the next generation
        collected = generation + 1
    return collected


class MainThreadCollector:
    """Switches the automatic collector off while installed; ``stop`` switches it back on."""

    def __init__(self, parent: Any = None, interval_ms: int = INTERVAL_MS) -> None:
        from PySide6.QtCore import QTimer

        self._was_enabled = gc.isenabled()
        gc.disable()
        self.timer = QTimer(parent)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(collect_due)
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        if self._was_enabled:
            gc.enable()
