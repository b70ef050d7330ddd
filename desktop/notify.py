"""A desktop notification for what waits on the user, which never takes the keyboard.

A lease request that arrives on its own shows no window (``lease_dialog``).
Beside the flags inside Agentdesk (its Ask window, the process table, the
status line) it is said outside too, where the platform can: a message from
a tray icon (shown only while something waits; clicking the message brings
the request up, which is the user asking), and ``QApplication.alert`` on the
main window, which on X11 sets the urgency hint (the task bar marks the
window) without activating anything. Offscreen, or with no system tray,
only the alert remains; ``last`` keeps the words said, for the views and tests.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QSystemTrayIcon, QWidget

from kernel.api import LeaseRequest

from .wording import lease_action

MESSAGE_MS = 10_000
HEADLESS = ("offscreen", "minimal")  # no tray can exist there


def request_words(request: LeaseRequest) -> tuple[str, str]:
    """The notification's title and text for a waiting request."""
    what = f"confirm {request.scope} once" if request.once else f"a {request.scope} lease"
    return (f"{request.agent_name} ({request.agent_id}) waits for {what}",
            f"{lease_action(request)}. Open Agentdesk and press Ctrl+Shift+A to answer.")


class Notifier:
    """Says a waiting request outside the window; ``clicked`` runs when the user clicks the message."""

    def __init__(self, window: Callable[[], QWidget | None], clicked: Callable[[], object]) -> None:
        self._window = window
        self._clicked = clicked
        self.tray: QSystemTrayIcon | None = None
        self.last: tuple[str, str] | None = None
        self._available: bool | None = None  # whether a tray shows messages here (asked on first use)

    def say(self, request: LeaseRequest) -> None:
        self.last = request_words(request)
        window = self._window()
        if window is not None and window.isVisible():
            QApplication.alert(window)  # marks the window in the task bar; activates nothing
        # Later, from the loop itself: asking whether a tray exists may wait on D-Bus in a nested event
        # loop, which must not run inside the kernel task that announced the request.
        QTimer.singleShot(0, self._show_message)

    def _show_message(self) -> None:
        tray = self._tray() if self.last is not None else None
        if tray is not None and self.last is not None:
            tray.showMessage(*self.last, QSystemTrayIcon.MessageIcon.Information, MESSAGE_MS)

    def quiet(self) -> None:
        """Nothing waits any more."""
        self.last = None
        if self.tray is not None:
            self.tray.hide()

    def _tray(self) -> QSystemTrayIcon | None:
        if self._available is None:  # asked once
            self._available = QGuiApplication.platformName() not in HEADLESS and \
                QSystemTrayIcon.isSystemTrayAvailable() and QSystemTrayIcon.supportsMessages()
        if not self._available:
            return None
        if self.tray is None:
            tray = QSystemTrayIcon(QApplication.windowIcon())
            tray.setToolTip("Agentdesk: a request waits for you")
            tray.messageClicked.connect(self._clicked)
            self.tray = tray
        self.tray.show()
        return self.tray
