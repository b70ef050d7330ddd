"""One-off confirmations (``automation_create``): the whole definition in words, Confirm or Decline.

No lease covers these, so each one is asked. The dialog is window-modal to
nothing and appears without taking the keyboard (UI.md: focus is the
user's); Esc and closing it decline. The decision goes back through
``kernel.resolve_confirmation``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from kernel.api import ConfirmationRequested, KernelFacade


class ConfirmDialog(QDialog):
    def __init__(self, kernel: KernelFacade, request: ConfirmationRequested, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kernel = kernel
        self.request = request
        self.answered = False
        self.setWindowTitle(request.title)
        self.setWindowModality(Qt.WindowModality.NonModal)
        title = QLabel(f"{request.title}. No lease covers this: confirm it or decline.")
        title.setWordWrap(True)
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        body = QLabel("\n".join(request.lines))
        body.setWordWrap(True)
        body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox()
        self.confirm_button = buttons.addButton("&Create it", QDialogButtonBox.ButtonRole.AcceptRole)
        self.decline_button = buttons.addButton("&Decline", QDialogButtonBox.ButtonRole.RejectRole)
        self.confirm_button.setAutoDefault(False)
        buttons.accepted.connect(lambda: self._answer(True))
        buttons.rejected.connect(lambda: self._answer(False))
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(body)
        layout.addWidget(buttons)
        self.resize(560, self.sizeHint().height())

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        self.decline_button.setDefault(True)  # a stray Enter declines (the button box picks its own on show)

    def _answer(self, confirmed: bool) -> None:
        if not self.answered:
            self.answered = True
            self.kernel.resolve_confirmation(self.request.id, confirmed)
        self.done(1 if confirmed else 0)

    def reject(self) -> None:  # Esc and the close button decline
        self._answer(False)

    def withdraw(self) -> None:
        """The request ended elsewhere (the agent was stopped): close without answering."""
        self.answered = True
        self.done(0)
