"""One message of the conversation, rendered from Markdown as it streams.

Deltas are appended to the raw text and a single-shot timer re-renders this
block only, at most once per ``interval_ms``: a long history is never
re-rendered per delta. ``flush()`` renders at once (end of a turn).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from ..ask_style import is_dark
from ..markdown_render import render_markdown


class MarkdownBlock(QLabel):
    def __init__(self, speaker: str, text: str = "", interval_ms: int = 50,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.speaker = speaker
        self.raw = text
        self.renders = 0
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.setOpenExternalLinks(False)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.flush)
        self.flush()

    def append(self, chunk: str) -> None:
        self.raw += chunk
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        self._timer.stop()
        code_bg = "#2b2b2b" if is_dark(self.palette()) else "#f0f0f0"
        body = render_markdown(self.raw, code_bg)
        head = f"<b>{html.escape(self.speaker)}:</b> "
        if body.startswith("<p>"):
            self.setText("<p>" + head + body[3:])
        else:
            self.setText(f"<p>{head}</p>" + body)
        self.renders += 1

    @property
    def pending(self) -> bool:
        return self._timer.isActive()
