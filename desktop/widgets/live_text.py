"""The streaming tail of a reply: rich text laid out once per change and repainted only where it grew.

A QLabel answers each size question (preferred, minimum, height for a
width) by laying its document out again, and a layout pass asks several;
while a reply streams that was most of every frame. This widget owns one
``QTextDocument`` laid out at its own width: a change costs one layout,
size questions read the result, and when text was only appended to the last
line's paragraph (``grow``) only the rows from that line down are repainted.
It shows text, nothing more; once a part of a reply is settled it moves to
an ordinary selectable label.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, QSize, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPaintEvent, QPainter, QPalette, QResizeEvent, QTextDocument
from PySide6.QtWidgets import QSizePolicy, QWidget

RESERVED_LINES = 3  # the layout makes room for the tail this many lines at a time


class LiveText(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._html = ""
        self._reserving = True  # while text may still arrive (``stop_reserving``)
        self.doc = QTextDocument(self)
        self.doc.setDocumentMargin(0)
        self.doc.setDefaultFont(self.font())
        self.doc.setUndoRedoEnabled(False)
        self.setAttribute(Qt.WidgetAttribute.WA_StaticContents)  # growing taller repaints only the new rows
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)  # height: for width, not a minimum
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def text(self) -> str:
        return self._html

    def set_html(self, html: str, grow: bool = False) -> None:
        """Show ``html``; ``grow`` says it only appended to the last paragraph (repaint from its last line)."""
        if html == self._html:
            return
        top = self._last_line_top() if grow else 0
        old_height = self._height()
        self._html = html
        self.doc.setHtml(html)
        self.doc.setTextWidth(max(1, self.width()))
        height = self._height()
        if self._reserved(height) != self._reserved(old_height):
            self.updateGeometry()
        self.update(QRect(0, top, self.width(), max(height, old_height) - top + 1))

    def _height(self) -> int:
        return int(self.doc.size().height() + 0.999)

    def _reserved(self, height: int) -> int:
        """The height asked of the layout: the text's, rounded up to a step of a few lines. A growing
        reply then moves its window's layout (every block below and beside it resized, repainted)
        once every few lines instead of on every line; in ui_bench's twenty streaming windows those
        relayouts were about a third of the desktop's work (2026-12-01)."""
        step = self.fontMetrics().lineSpacing() * RESERVED_LINES if self._reserving else 0
        return -(-height // step) * step if height > 0 and step > 0 else height

    def stop_reserving(self) -> None:
        """The text is complete: ask the layout for its own height, no lines ahead."""
        if self._reserving:
            self._reserving = False
            self.updateGeometry()

    def _last_line_top(self) -> int:
        block = self.doc.lastBlock()
        layout = block.layout()
        if layout is None or layout.lineCount() == 0:
            return 0
        line = layout.lineAt(layout.lineCount() - 1)
        return max(0, int(layout.position().y() + line.y()))

    # ---- geometry -----------------------------------------------------------------

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        if width != int(self.doc.textWidth()):
            self.doc.setTextWidth(max(1, width))
        return self._reserved(self._height())

    def sizeHint(self) -> QSize:
        width = self.width() if self.width() > 1 else self.fontMetrics().averageCharWidth() * 80
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        return QSize(self.fontMetrics().averageCharWidth() * 8, self.fontMetrics().lineSpacing())

    def resizeEvent(self, event: QResizeEvent) -> None:
        if int(self.doc.textWidth()) != max(1, self.width()):  # growing taller changes no line: no new layout
            self.doc.setTextWidth(max(1, self.width()))
        super().resizeEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        self.doc.setDefaultFont(self.font())
        super().changeEvent(event)

    # ---- painting -----------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        context = QAbstractTextDocumentLayout.PaintContext()
        palette = QPalette(self.palette())
        palette.setColor(QPalette.ColorRole.Text, self.palette().color(self.foregroundRole()))
        context.palette = palette
        context.clip = event.rect().toRectF()
        painter.setClipRect(event.rect())
        self.doc.documentLayout().draw(painter, context)
        painter.end()
