"""Who has the keyboard: where the user was typing, and when they last typed anywhere.

Two small tools for the lease dialogs (``lease_dialog``), kept apart from any
one window because both are about the whole application:

- ``FocusKeeper`` notes the active window and its focus widget before a
  dialog comes up, and hands the keyboard back to them after it is answered.
- ``KeyWatch`` is an application-wide event filter on ``KeyPress``: every
  keystroke in any Agentdesk window is reported (``typed``), so a lease
  dialog's grant delay counts from the user's last keystroke anywhere, not
  from when the dialog came up. A typist who keeps typing into another
  window therefore never gets past it. Only the keys a person uses to answer
  the dialog it is in (Tab, arrows, Enter, Space, Esc) are not reported: they
  are what the delay is there to let through once the typing has stopped.
"""

from __future__ import annotations

import weakref
from typing import Callable

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

ANSWER_KEYS = frozenset({
    Qt.Key.Key_Tab, Qt.Key.Key_Backtab, Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Left, Qt.Key.Key_Right,
    Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space, Qt.Key.Key_Escape,
})


class FocusKeeper:
    """Where the keyboard was when this was made, and a way to hand it back."""

    def __init__(self) -> None:
        self.window: QWidget | None = QApplication.activeWindow()
        self.widget: QWidget | None = QApplication.focusWidget()

    def restore(self) -> None:
        """Activate the window again and put the focus back on its widget (if both still exist and show)."""
        window, widget = self.window, self.widget
        if window is None or not shiboken6.isValid(window) or not window.isVisible():
            return
        if QApplication.activeWindow() is not window:
            window.raise_()
            window.activateWindow()
        if widget is not None and shiboken6.isValid(widget) and widget.isVisible() and \
                QApplication.focusWidget() is not widget:
            widget.setFocus(Qt.FocusReason.ActiveWindowFocusReason)


class KeyWatch(QObject):
    """Reports every key press in the application (``typed``), less the answer keys pressed in a window
    that ``answering`` says is for answering (a lease dialog the user brought up).

    The application owns it, not ``owner``: an application-wide filter whose Python object the garbage
    collector frees while it is still installed crashes Qt on the next event (seen in the test suite: a
    QLabel's ParentChange went through a filter whose wrapper was half freed). It holds ``owner`` weakly
    and takes itself out once ``owner`` is gone without calling ``stop``."""

    typed = Signal()

    def __init__(self, answering: Callable[[QWidget | None], bool], owner: object | None = None) -> None:
        app = QCoreApplication.instance()
        super().__init__(app)
        self._answering = answering
        self._owner = weakref.ref(owner) if owner is not None else None
        self._stopped = False
        if app is not None:
            app.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if self._stopped:
            return False
        if self._owner is not None and self._owner() is None:
            self.stop()
            return False
        # A widget receives every key press (the platform's window only hands it on): count it there,
        # once per widget it passes through, which is harmless (each only restarts the delay).
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) and isinstance(watched, QWidget):
            if not (event.key() in ANSWER_KEYS and self._answering(watched.window())):
                self.typed.emit()
        return False

    def stop(self) -> None:
        """Stop watching; the object goes with the next turn of the event loop."""
        if self._stopped:
            return
        self._stopped = True
        app = QCoreApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        self.deleteLater()
