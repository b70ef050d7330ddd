"""Pictures waiting to go with the next message: a strip of thumbnails, each with a remove button.

Pictures come from a paste (Ctrl+V of an image on the clipboard) or a drop (an image, or image files) into
the message box (``MessageInput.images_offered``). The desktop only holds their bytes and shows them; the
kernel fits and keeps them when the message is sent (``agents.attach_image``). A file dropped in a format
the kernel does not read (BMP, TIFF, SVG…) is turned into a PNG here by Qt's own readers; an SVG is drawn
as a picture by ``QImageReader``'s SVG plug-in (no scripts, no document), never opened as a document.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt, Signal
from PySide6.QtGui import QImage, QImageReader, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

THUMB = 64
MAX_BYTES = 40 * 1024 * 1024  # what the kernel reads at most
KEPT_FORMATS = {b"png", b"jpeg", b"jpg", b"webp", b"gif"}


@dataclass(frozen=True)
class Pending:
    data: bytes
    label: str
    width: int
    height: int


def png_of(image: QImage) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stub says bytes; the binding takes str
    return bytes(buffer.data().data())


def from_image(image: QImage, label: str) -> Pending | None:
    if image.isNull():
        return None
    return Pending(png_of(image), label, image.width(), image.height())


def from_file(path: str) -> Pending | None:
    """A dropped file as a picture to send: its own bytes when the kernel reads its format, else a PNG."""
    reader = QImageReader(path)
    fmt = bytes(reader.format().data()).lower()
    if not fmt:
        return None
    size = reader.size()
    name = path.rsplit("/", 1)[-1]
    if fmt in KEPT_FORMATS:
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except OSError:
            return None
        if len(data) > MAX_BYTES:
            return None
        return Pending(data, name, size.width(), size.height())
    return from_image(reader.read(), name)


class AttachmentStrip(QWidget):
    """The pending pictures, each a thumbnail with a remove button; hidden when there are none."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pending: list[Pending] = []
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setSpacing(8)
        self._row.addStretch(1)
        self.hide()

    def add(self, item: Pending) -> None:
        self.pending.append(item)
        self._rebuild()

    def remove(self, index: int) -> None:
        if 0 <= index < len(self.pending):
            del self.pending[index]
            self._rebuild()

    def take(self) -> list[Pending]:
        out, self.pending = self.pending, []
        self._rebuild()
        return out

    def _rebuild(self) -> None:
        while self._row.count() > 1:
            old = self._row.takeAt(0)
            widget = old.widget() if old is not None else None
            if widget is not None:
                widget.hide()  # gone from the strip now; freed by Qt at the next turn of the loop (its remove
                widget.deleteLater()  # button may be the one whose click is being handled)
        for index, item in enumerate(self.pending):
            thumb = self._thumb(index, item)
            self._row.insertWidget(index, thumb)
            thumb.show()
        self.setVisible(bool(self.pending))
        self.changed.emit()

    def _thumb(self, index: int, item: Pending) -> QWidget:
        box = QWidget(self)
        box.setObjectName("attachment")
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        picture = QLabel(box)
        pixmap = QPixmap()
        pixmap.loadFromData(QByteArray(item.data))
        picture.setPixmap(pixmap.scaled(THUMB, THUMB, Qt.AspectRatioMode.KeepAspectRatio,
                                        Qt.TransformationMode.SmoothTransformation))
        picture.setToolTip(f"{item.label}, {item.width}\u00d7{item.height}")
        remove = QToolButton(box)
        remove.setText("\u00d7")
        remove.setObjectName("removeAttachment")
        remove.setToolTip(f"Remove {item.label}")
        remove.setAccessibleName(f"Remove {item.label}")
        remove.clicked.connect(lambda: self.remove(index))
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(picture)
        top.addWidget(remove, 0, Qt.AlignmentFlag.AlignTop)
        column.addLayout(top)
        caption = QLabel(f"{item.width}\u00d7{item.height}", box)
        caption.setTextFormat(Qt.TextFormat.PlainText)
        column.addWidget(caption)
        return box
