"""The one place kernel events cross into Qt: a QObject that re-emits them as a signal.

Kernel subscribers run synchronously on the event loop's thread, which under
qasync is the Qt main thread, so re-emitting is direct and ordered. Views
connect to ``event`` and filter by type; ``tick`` fires once a second for
countdowns (time left is read from the kernel clock, never counted here).

Minimal version for the ask-window branch; the main-window branch owns the
full one and keeps this API.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from kernel.facade import Kernel


class EventBridge(QObject):
    event = Signal(object)
    tick = Signal()

    def __init__(self, kernel: Kernel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._unsubscribe = kernel.subscribe(self.event.emit)
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self.tick.emit)
        self._timer.start()

    def close(self) -> None:
        """Stop re-emitting (the kernel may outlive the desktop)."""
        self._timer.stop()
        self._unsubscribe()
