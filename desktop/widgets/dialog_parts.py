"""The parts the desktop's dialogs and panels share: a section's bold heading, the error line under a form's
fields and Save/Cancel."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QWidget

from ..theme import ERROR, shade


def heading(text: str = "") -> QLabel:
    """A section's title: the label in the bold face of its font."""
    label = QLabel(text)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label


def error_label(parent: QWidget) -> QLabel:
    """A hidden, wrapping, plain-text line in the error colour, for what Save refused and why."""
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)  # the message may quote what was typed
    label.setStyleSheet(f"color: {shade(ERROR, parent.palette())};")
    label.hide()
    return label


def refuse(label: QLabel, message: str) -> bool:
    """Show why Save did nothing on ``label``; False, for the caller to return."""
    label.setText(message)
    label.show()
    return False


def save_cancel(dialog: QDialog, save: object) -> QDialogButtonBox:
    """Save (calls ``save``) and Cancel (rejects the dialog)."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, dialog)
    buttons.accepted.connect(save)
    buttons.rejected.connect(dialog.reject)
    return buttons
