"""One message of the conversation, rendered from Markdown as it streams.

A reply grows by appends (the transcript coalesces deltas into one append
per frame). Re-rendering the whole reply on each append would cost more the
longer it gets, so the block is a column: once a blank line closes the
Markdown blocks before it (``settled_length``), that part is rendered a last
time into an ordinary selectable label and left alone, and only the live
tail — the paragraph or code block still arriving — is rendered again, into
a ``LiveText`` that lays it out once and repaints only what grew.
``finish()`` (end of the turn) moves the tail into a label too. A message
that arrives whole (the person's own) is built ``final``: straight into a
label, with no live tail laid out first.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from ..theme import SPACING, is_dark
from ..markdown_render import is_plain_line, render_markdown, settled_length
from .live_text import LiveText
from .rich_label import RichLabel


class MarkdownBlock(QWidget):
    def __init__(self, speaker: str, text: str = "", parent: QWidget | None = None, final: bool = False) -> None:
        super().__init__(parent)
        self.speaker = speaker
        self.raw = ""
        self.renders = 0
        self.labels: list[QLabel] = []  # the settled parts, in order
        self._settled = 0               # raw[:_settled] is in ``labels`` for good
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(SPACING * 2)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setAttribute(Qt.WidgetAttribute.WA_StaticContents)
        self.live = LiveText(self)
        self._layout.addWidget(self.live)
        if final and text:
            self.raw = text
            self._settle(len(text))
            self.live.hide()
        else:
            self.append(text)

    def append(self, chunk: str) -> None:
        """Add text and render what changed (a newly settled part once, the live tail again)."""
        old_tail = self.raw[self._settled:]
        self.raw += chunk
        cut = settled_length(self.raw, self._settled)
        if cut > self._settled:
            self._settle(cut)
            old_tail = ""
        tail = self.raw[self._settled:]
        grow = bool(old_tail) and tail.startswith(old_tail) and is_plain_line(old_tail) and is_plain_line(tail)
        self.live.set_html(self._html(tail, first=self._settled == 0), grow=grow)
        self.live.setVisible(bool(tail) or self._settled == 0)
        self.renders += 1

    def finish(self) -> None:
        """The reply is complete: its tail becomes a selectable label like the rest."""
        if self._settled < len(self.raw):
            self._settle(len(self.raw))
        if self.labels:
            self.live.set_html("")
            self.live.hide()

    def _settle(self, cut: int) -> None:
        label = RichLabel(self)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        label.setOpenExternalLinks(False)
        label.setText(self._html(self.raw[self._settled:cut], first=self._settled == 0))
        self._layout.insertWidget(len(self.labels), label)
        self.labels.append(label)
        self._settled = cut

    def _html(self, text: str, first: bool) -> str:
        body = render_markdown(text, "#2b2b2b" if is_dark(self.palette()) else "#f0f0f0") if text else ""
        if not first:
            return body
        head = f"<b>{html.escape(self.speaker)}:</b> "
        return "<p>" + head + body[3:] if body.startswith("<p>") else f"<p>{head}</p>" + body

    def text(self) -> str:
        """The rendered HTML of the whole message."""
        return "".join(label.text() for label in self.labels) + self.live.text()
