"""One message of the conversation, rendered from Markdown as it streams.

A reply grows by appends (the transcript coalesces deltas into one append
per frame). Re-rendering the whole reply on each append would cost more the
longer it gets, so the block is a column of labels: once a blank line closes
the Markdown blocks before it (``settled_length``), that part is rendered a
last time into its own label and left alone, and only the live tail — the
paragraph or code block still arriving — is rendered again.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from ..ask_style import SPACING, is_dark
from ..markdown_render import render_markdown, settled_length


class MarkdownBlock(QWidget):
    def __init__(self, speaker: str, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.speaker = speaker
        self.raw = ""
        self.renders = 0
        self.labels: list[QLabel] = []
        self._settled = 0  # raw[:_settled] is rendered for good in labels[:-1]
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(SPACING * 2)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self._live = self._new_label()
        self.append(text)

    def _new_label(self) -> QLabel:
        label = QLabel(self)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        label.setOpenExternalLinks(False)
        label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self._layout.addWidget(label)
        self.labels.append(label)
        return label

    def append(self, chunk: str) -> None:
        """Add text and render what changed (the settled part once, the live tail again)."""
        self.raw += chunk
        cut = settled_length(self.raw, self._settled)
        if cut > self._settled:
            self._live.setText(self._html(self.raw[self._settled:cut], first=self._settled == 0))
            self._settled = cut
            self._live = self._new_label()
        tail = self.raw[self._settled:]
        self._live.setVisible(bool(tail) or self._settled == 0)
        self._live.setText(self._html(tail, first=self._settled == 0))
        self.renders += 1

    def _html(self, text: str, first: bool) -> str:
        body = render_markdown(text, "#2b2b2b" if is_dark(self.palette()) else "#f0f0f0")
        if not first:
            return body
        head = f"<b>{html.escape(self.speaker)}:</b> "
        return "<p>" + head + body[3:] if body.startswith("<p>") else f"<p>{head}</p>" + body

    def text(self) -> str:
        """The rendered HTML of the whole message."""
        return "".join(label.text() for label in self.labels)
