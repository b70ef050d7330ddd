"""The message box: Enter (or Ctrl+Enter) sends, Shift+Enter starts a new line; a pasted or dropped picture
(an image on the clipboard, image files) is offered as an attachment (``images_offered``), never as text."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QMimeData, Qt, Signal
from PySide6.QtGui import QImage, QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from .attachments import Pending, from_file, from_image


class MessageInput(QPlainTextEdit):
    submitted = Signal()
    images_offered = Signal(list)  # list[Pending]

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText("message\u2026  (Enter sends, Shift+Enter for a new line)")
        self.setTabChangesFocus(True)
        self.setFixedHeight(self.fontMetrics().lineSpacing() * 3 + 16)
        # Keys a helper of the window takes first (the MCP picker's Up/Down/Enter/Tab/Esc): a hook, not an event
        # filter object, because a Python event filter freed by the garbage collector together with its window
        # crashed Qt in the test suite (see focus_guard.KeyWatch).
        self.key_hook: Callable[[QKeyEvent], bool] | None = None

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self.key_hook is not None and self.key_hook(event):
            event.accept()
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.submitted.emit()
            event.accept()
            return
        super().keyPressEvent(event)

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: N802, A002 - Qt's names
        """Tab moves the focus, unless the hook takes it (Tab never reaches ``keyPressEvent`` here)."""
        tab = QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Tab, Qt.KeyboardModifier.NoModifier)
        if next and self.key_hook is not None and self.key_hook(tab):
            return True
        return super().focusNextPrevChild(next)

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return source.hasImage() or bool(_image_files(source)) or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        """Ctrl+V and drops land here: pictures become attachments, anything else is text as usual."""
        offered = pictures_of(source)
        if offered:
            self.images_offered.emit(offered)
            return
        super().insertFromMimeData(source)


def _image_files(source: QMimeData) -> list[str]:
    return [url.toLocalFile() for url in source.urls() if url.isLocalFile()] if source.hasUrls() else []


def pictures_of(source: QMimeData) -> list[Pending]:
    """The pictures a paste or a drop carries: image files first (their own bytes), else the image itself."""
    found = [p for p in (from_file(path) for path in _image_files(source)) if p is not None]
    if not found and source.hasImage():
        image = source.imageData()
        item = from_image(image if isinstance(image, QImage) else QImage(image), "pasted image")
        found = [item] if item is not None else []
    return found

