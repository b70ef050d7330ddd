"""A tool call as a compact card: one line until expanded.

The line names the tool and its scope (monospace), what it works on, the
line counts of any file change, the duration and a ✓ or ✗. "▸ details"
opens the full input, the output (or error) and a diff per file change.
A failed, denied or expired call is drawn in the error colour with its
reason in words on a second line, visible without a click. Pictures the
call showed the model (an image fs_read, an MCP tool's image) are thumbnails
under the line, their size and origin in the tooltip. A running call whose MCP server reports
progress shows it in the line ("… 3 of 10 · its message") with a thin bar under it.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QToolButton, QVBoxLayout, QWidget

from ..theme import ERROR, MUTED, mono_font, shade
from ..wording import CallOutcome, diff_counts, format_counts, format_duration_ms, format_input, summarize_input
from .diff_view import DiffView

PICTURE_THUMB = 96


def _count(value: float | None) -> str:
    """A progress figure in words: whole numbers without a point, grouped ("1,200"), others to one place."""
    if value is None:
        return "?"
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,.1f}"


def _mono_label(text: str, parent: QWidget, selectable: bool = False) -> QLabel:
    label = QLabel(text, parent)
    label.setFont(mono_font())
    label.setTextFormat(Qt.TextFormat.PlainText)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class ToolCard(QFrame):
    def __init__(self, tool: str, scope: str, tool_input: Mapping[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolCard")
        self.tool, self.scope, self.tool_input = tool, scope, dict(tool_input)
        self.outcome: CallOutcome | None = None
        self.content = ""
        self.diffs: list[str] = []
        self._details: QWidget | None = None
        self.progress_bar: QProgressBar | None = None  # shown once the call's server reports progress

        self.name_label = _mono_label(tool, self)
        self.name_label.setStyleSheet("font-weight: bold;")
        self.scope_label = _mono_label(scope, self)
        self.summary_label = _mono_label(summarize_input(tool, tool_input), self)
        self.counts_label = _mono_label("", self)
        self.status_label = QLabel("\u2026 running", self)
        self.details_button = QToolButton(self)
        self.details_button.setText("\u25b8 details")
        self.details_button.setAutoRaise(True)
        self.details_button.clicked.connect(self.toggle)
        self.reason_label = QLabel(self)
        self.reason_label.setTextFormat(Qt.TextFormat.PlainText)  # it quotes a tool's error (a page, a file name)
        self.reason_label.setWordWrap(True)
        self.reason_label.hide()

        row = QHBoxLayout()
        row.setSpacing(12)
        for w in (self.name_label, self.scope_label, self.summary_label, self.counts_label):
            row.addWidget(w)
        row.addStretch(1)
        row.addWidget(self.status_label)
        row.addWidget(self.details_button)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(8, 4, 8, 4)
        self._layout.setSpacing(4)
        self._layout.addLayout(row)
        self._layout.addWidget(self.reason_label)
        self._pictures: QHBoxLayout | None = None
        self._paint()

    # ---- state ------------------------------------------------------------------

    def finish(self, outcome: CallOutcome, content: str, duration_ms: float, diffs: Sequence[str] = ()) -> None:
        self.outcome, self.content, self.diffs = outcome, content, list(diffs)
        if self.diffs:
            added = removed = 0
            for d in self.diffs:
                a, r = diff_counts(d)
                added, removed = added + a, removed + r
            self.counts_label.setText(format_counts(added, removed))
        ran = not outcome.failed or duration_ms > 0  # a refused call never ran: no duration to show
        self.status_label.setText(f"{outcome.mark} {format_duration_ms(duration_ms)}" if ran else outcome.mark)
        if self.progress_bar is not None:
            self.progress_bar.hide()
        if outcome.failed:
            self.reason_label.setText(outcome.words)
            self.reason_label.show()
        if self._details is not None:  # rebuild an open details pane with the result
            self._details.deleteLater()
            self._details = None
            self._show_details()
        self._paint()

    def show_progress(self, done: float, total: float | None, message: str) -> None:
        """A running call's progress as its server said it: "3 of 10" and a bar (a total known), or "3 so far"."""
        if self.outcome is not None:
            return  # finished: a late notice changes nothing
        if self.progress_bar is None:
            self.progress_bar = QProgressBar(self)
            self.progress_bar.setTextVisible(False)
            self.progress_bar.setMaximumHeight(6)
            self._layout.insertWidget(1, self.progress_bar)
        if total:
            self.progress_bar.setRange(0, 1000)
            self.progress_bar.setValue(round(1000 * min(done, total) / total))
        else:
            self.progress_bar.setRange(0, 0)  # busy: no total to measure against
        words = f"{_count(done)} of {_count(total)}" if total else f"{_count(done)} so far"
        self.status_label.setText(f"\u2026 {words}" + (f" \u00b7 {message}" if message else ""))

    def add_picture(self, data: bytes, words: str) -> None:
        """A thumbnail of a picture the call showed the model (read, or returned by a tool), under its line."""
        if self._pictures is None:
            self._pictures = QHBoxLayout()
            self._pictures.setContentsMargins(0, 0, 0, 0)
            self._pictures.setSpacing(8)
            self._pictures.addStretch(1)
            self._layout.insertLayout(1, self._pictures)
        pixmap = QPixmap()
        if not pixmap.loadFromData(QByteArray(data)):
            return
        thumb = QLabel(self)
        thumb.setObjectName("pictureThumb")
        thumb.setPixmap(pixmap.scaled(PICTURE_THUMB, PICTURE_THUMB, Qt.AspectRatioMode.KeepAspectRatio,
                                      Qt.TransformationMode.SmoothTransformation))
        thumb.setToolTip(words)
        thumb.setAccessibleName(words)
        self._pictures.insertWidget(self._pictures.count() - 1, thumb)

    @property
    def pictures(self) -> int:
        return 0 if self._pictures is None else self._pictures.count() - 1

    @property
    def expanded(self) -> bool:
        return self._details is not None and not self._details.isHidden()

    def toggle(self) -> None:
        if self.expanded:
            assert self._details is not None
            self._details.hide()
            self.details_button.setText("\u25b8 details")
        else:
            self._show_details()
            self.details_button.setText("\u25be details")

    def _show_details(self) -> None:
        if self._details is None:
            self._details = self._build_details()
            self._layout.addWidget(self._details)
        self._details.show()

    def _build_details(self) -> QWidget:
        box = QWidget(self)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.setSpacing(4)
        layout.addWidget(QLabel("Input", box))
        shown = _mono_label(format_input(self.tool_input)[:4000], box, True)
        shown.setWordWrap(True)
        layout.addWidget(shown)
        if self.outcome is not None:
            layout.addWidget(QLabel("Output" if not self.outcome.failed else "Error", box))
            out = _mono_label(self.content[:4000] or "(empty)", box, True)
            out.setWordWrap(True)
            layout.addWidget(out)
        for diff in self.diffs:
            layout.addWidget(QLabel("Change", box))
            layout.addWidget(DiffView(diff, parent=box))
        return box

    # ---- looks ------------------------------------------------------------------

    @property
    def error_colour(self) -> str:
        return shade(ERROR, self.palette())

    def _paint(self) -> None:
        muted = shade(MUTED, self.palette())
        self.scope_label.setStyleSheet(f"color: {muted};")
        if self.outcome is not None and self.outcome.failed:
            err = self.error_colour
            self.setStyleSheet(f"QFrame#toolCard {{ border: 1px solid {err}; border-radius: 4px; }}")
            self.status_label.setStyleSheet(f"color: {err}; font-weight: bold;")
            self.reason_label.setStyleSheet(f"color: {err};")
        else:
            self.setStyleSheet(f"QFrame#toolCard {{ border: 1px solid {muted}; border-radius: 4px; }}")
            self.status_label.setStyleSheet("")
