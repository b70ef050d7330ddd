"""A scroll bar drawn as a flat track and handle in palette colours, cheap to repaint.

A transcript that follows a streaming reply changes its scroll range with
every new line, so its scroll bar is repainted several times a second in
every open Ask window. The Fusion style draws a scroll bar with gradients,
arrows and frames; measured in the 20-window benchmark that was 1–2 ms a
paint and the largest single cost of a frame. This bar paints two rounded
rectangles. Geometry and mouse handling stay the style's own (the handle
is drawn where the style says it is), so dragging, paging and the wheel
behave as in any other scroll bar.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPaintEvent, QPainter, QPalette
from PySide6.QtWidgets import QScrollBar, QStyle, QStyleOptionSlider, QWidget


class FlatScrollBar(QScrollBar):
    def __init__(self, orientation: Qt.Orientation = Qt.Orientation.Vertical, parent: QWidget | None = None) -> None:
        super().__init__(orientation, parent)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)  # the track covers every pixel
        self.setAttribute(Qt.WidgetAttribute.WA_Hover)

    def handle_rect(self) -> QRectF:
        """Where the style places the handle (and so where a click grabs it)."""
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        return QRectF(self.style().subControlRect(
            QStyle.ComplexControl.CC_ScrollBar, option, QStyle.SubControl.SC_ScrollBarSlider, self))

    def paintEvent(self, event: QPaintEvent) -> None:
        palette = self.palette()
        painter = QPainter(self)
        painter.fillRect(self.rect(), palette.color(QPalette.ColorRole.Base))
        if self.maximum() > self.minimum():
            handle = self.handle_rect().adjusted(3, 1, -3, -1) if self.orientation() == Qt.Orientation.Vertical \
                else self.handle_rect().adjusted(1, 3, -1, -3)
            role = QPalette.ColorRole.Dark if self.isSliderDown() or self.underMouse() else QPalette.ColorRole.Mid
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(palette.color(role))
            radius = min(handle.width(), handle.height()) / 2
            painter.drawRoundedRect(handle, radius, radius)
        painter.end()
