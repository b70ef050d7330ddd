"""A New Ask typed before the kernel answers (issue 28: the window first).

The desktop shows its main window before it is attached to the kernel, so
"+ New Ask" (Ctrl+N) may be pressed while there is no kernel to start an
agent in. It opens this window instead: the same message box as an Ask
window, and a line saying, honestly, that the message waits for the kernel.
Sending hands the text to ``window_first.Starter`` (``submitted``), which
starts the agent and sends it exactly once when the kernel answers; until
then the text stays on screen, read-only, so nothing typed is lost. Once
attached, the Ask window of the new agent takes its place.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from . import style
from .widgets.message_input import MessageInput

WAITING = "Connecting to the kernel\u2026 what you send here goes to a new agent as soon as it answers."
QUEUED = "Queued: it goes to a new agent as soon as the kernel answers."


class PendingAskWindow(QWidget):
    """A message box for an agent not started yet; ``submitted(text)`` once, when the user sends."""

    submitted = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle("New Ask \u00b7 waiting for the kernel")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(style.SPACING * 3, style.SPACING * 3, style.SPACING * 3, style.SPACING * 3)
        self.note = QLabel(WAITING)
        self.note.setWordWrap(True)
        layout.addWidget(self.note, 1, Qt.AlignmentFlag.AlignTop)
        row = QHBoxLayout()
        self.input = MessageInput(self)
        self.input.submitted.connect(self.send)
        self.send_button = QPushButton("Send")
        self.send_button.clicked.connect(self.send)
        row.addWidget(self.input, 1)
        row.addWidget(self.send_button)
        layout.addLayout(row)
        self.resize(640, 360)
        self.queued: str | None = None

    def send(self) -> None:
        """Queue the text (once): the box turns read-only and says it waits."""
        text = self.input.toPlainText().strip()
        if not text or self.queued is not None:
            return
        self.queued = text
        self.input.setReadOnly(True)
        self.send_button.setEnabled(False)
        self.note.setText(QUEUED)
        self.submitted.emit(text)

    def failed(self, why: str) -> None:
        """The kernel could not take it (a refused workspace, no kernel): say why; the text stays to send again."""
        self.queued = None
        self.input.setReadOnly(False)
        self.send_button.setEnabled(True)
        self.note.setText(f"Not sent: {why}")
