"""Kernel events as a Qt signal.

The kernel's bus calls subscribers synchronously on the event loop's thread;
under qasync that is the Qt thread, so the bridge re-emits each event
directly (no queued hop, no copy) and every view connects to ``event`` and
``match``es on the event class. ``tick`` fires once a second so countdowns
("4 min left") move without anyone polling the kernel.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal


class EventBridge(QObject):
    event = Signal(object)
    tick = Signal()

    def __init__(self, kernel: Any, parent: QObject | None = None, tick_ms: int = 1000) -> None:
        super().__init__(parent)
        self._unsubscribe = kernel.subscribe(self._on_event)
        self._timer = QTimer(self)
        self._timer.setInterval(tick_ms)
        self._timer.timeout.connect(self.tick)
        self._timer.start()

    def _on_event(self, event: object) -> None:
        self.event.emit(event)

    def close(self) -> None:
        """Stop listening (the kernel keeps running)."""
        self._timer.stop()
        self._unsubscribe()
