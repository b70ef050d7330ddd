"""A word-wrapped rich-text label whose size questions cost one text layout per width.

QLabel answers ``sizeHint``, ``minimumSizeHint`` and every ``heightForWidth``
by laying its whole document out again, and a layout pass asks all three,
several times; for a reply that grows a few words per frame that is most of
the frame. This label lays out once per (text, width): heights are cached
until the text changes, the minimum width is a few characters (it wraps),
and the preferred size is the cached height at the last width it was given.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class RichLabel(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._heights: dict[int, int] = {}
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)  # height: for width, not a minimum
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def setText(self, text: str) -> None:
        if text != self.text():
            self._heights.clear()
            super().setText(text)

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            if len(self._heights) > 8:
                self._heights.clear()
            height = self._heights[width] = super().heightForWidth(width)
        return height

    def hasHeightForWidth(self) -> bool:
        return True

    def minimumSizeHint(self) -> QSize:
        return QSize(self.fontMetrics().averageCharWidth() * 8, self.fontMetrics().lineSpacing())

    def sizeHint(self) -> QSize:
        width = self.width() if self.width() > 0 else self.fontMetrics().averageCharWidth() * 80
        return QSize(width, self.heightForWidth(width))
