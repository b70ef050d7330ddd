"""A unified diff in a monospace box, added lines green and removed lines red (palette-aware).

Every line goes through ``wording.visible`` before it is escaped: a bidi override or a zero-width
character in a file or in a mail about to be sent would otherwise reorder what is read here (a
recipient ``\u202e...`` reading as another address), while the summary line and the arguments view
show the codes. HTML-escaping alone keeps markup out, not reordering.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QSize
from PySide6.QtGui import QPalette, QTextOption
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QWidget

from ..theme import ADDED, ADDED_BG, MUTED, REMOVED, REMOVED_BG, mono_family, shade
from ..wording import diff_line_kind, visible


def diff_html(diff: str, palette: QPalette | None = None, plain: bool = False) -> str:
    """HTML for a unified diff: one coloured line per diff line (``plain``: text, nothing coloured)."""
    styles = {
        "add": f"color:{shade(ADDED, palette)}; background-color:{shade(ADDED_BG, palette)};",
        "remove": f"color:{shade(REMOVED, palette)}; background-color:{shade(REMOVED_BG, palette)};",
        "hunk": f"color:{shade(MUTED, palette)};",
        "header": f"color:{shade(MUTED, palette)}; font-weight:bold;",
        "context": "",
    }
    lines = diff.rstrip("\n").split("\n") if diff.strip() else ["(no changes)"]
    body = "".join(f'<div style="{styles["context" if plain else diff_line_kind(line)]}">{html.escape(visible(line)) or "&nbsp;"}</div>'
                   for line in lines)
    return f'<div style="font-family:\'{mono_family()}\'; white-space:pre;">{body}</div>'


class DiffView(QTextBrowser):
    """Read-only; as tall as its diff up to ``max_lines``, then it scrolls.

    ``shrink``: the height is a preference, not a fixed size. A dialog on a small
    screen may squeeze the view down to ``min_lines`` (it scrolls), so the widgets
    below it never get drawn over it.
    """

    def __init__(self, diff: str = "", max_lines: int = 18, parent: QWidget | None = None, *,
                 shrink: bool = False, min_lines: int = 3, plain: bool = False) -> None:
        super().__init__(parent)
        self.plain = plain  # a message to be sent, not a diff: no +/- colours
        self.shrink = shrink
        self.min_lines = min_lines
        self._preferred = 0
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setWordWrapMode(QTextOption.WrapMode.NoWrap)
        self.setOpenLinks(False)
        self.max_lines = max_lines
        self.diff = ""
        self.set_diff(diff)

    def set_diff(self, diff: str) -> None:
        self.diff = diff
        self.setHtml(diff_html(diff, self.palette(), self.plain))
        doc = self.document()
        doc.setTextWidth(-1)  # no wrapping: the natural height of every line
        lines = max(1, diff.rstrip("\n").count("\n") + 1)
        margins = 2 * doc.documentMargin()
        per_line = (doc.size().height() - margins) / lines
        shown = min(self.max_lines, lines) * per_line + margins
        bar = self.horizontalScrollBar().sizeHint().height() if doc.idealWidth() > 900 else 0
        chrome = 2 * self.frameWidth() + bar + 2
        if not self.shrink:
            self.setFixedHeight(int(shown + chrome))
            return
        self._preferred = int(shown + chrome)
        least = min(self.min_lines, lines) * per_line + margins + chrome
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setMinimumHeight(int(least))
        self.setMaximumHeight(self._preferred)
        self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        hint = super().sizeHint()
        return QSize(hint.width(), self._preferred) if self.shrink else hint
