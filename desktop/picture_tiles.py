"""Pictures of files, before and after: the kernel's thumbnails as images, and tiles that say why there is none.

The ledger's detail and the undo confirmation show a picture file's two sides. The bytes come from the
kernel (``ledger.thumbnail``: a PNG a few hundred pixels a side, or an SVG the kernel has rebuilt without
DTD, scripts or outside references), fetched once per blob and kept here (``Thumbnails``). An SVG is drawn
as a picture with ``QSvgRenderer`` (Tiny 1.2 features, no animation), never opened as a document; QtSvg is
imported on the first SVG (measured 2026-12-03 on the loaded 2-core machine: ~170 ms to import, so never
on the way to the first window). The desktop checks again what it draws: an SVG with a DTD or over
``MAX_SVG_BYTES`` is not drawn, whatever sent it. A side with no file, or one that is not a picture or was
not kept, is a framed tile with words (``tile``).
"""

from __future__ import annotations

import asyncio
import base64
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QObject, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen

if TYPE_CHECKING:
    from kernel.api import LedgerDesk, Thumbnail

EDGE = 160  # px: a thumbnail's long side on screen
MAX_SVG_BYTES = 512 * 1024


def svg_image(data: bytes, edge: int = EDGE) -> QImage | None:
    """``data`` (an SVG) drawn as a picture within ``edge`` px, or None when it is not one to draw."""
    head = data[:4096].lower()
    if len(data) > MAX_SVG_BYTES or b"<!doctype" in head or b"<!entity" in data.lower():
        return None
    from PySide6.QtSvg import QSvgRenderer, QtSvg  # on the first SVG only (see the module's docstring)

    renderer = QSvgRenderer()
    renderer.setOptions(QtSvg.Option.Tiny12FeaturesOnly | QtSvg.Option.DisableAnimations)
    if not renderer.load(QByteArray(data)) or not renderer.isValid():
        return None
    size = renderer.defaultSize()
    w, h = (size.width(), size.height()) if size.width() > 0 and size.height() > 0 else (edge, edge)
    scale = edge / max(w, h)
    image = QImage(max(1, round(w * scale)), max(1, round(h * scale)), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    renderer.render(painter, QRectF(0, 0, image.width(), image.height()))
    painter.end()
    return image


def image_of(thumb: Thumbnail, edge: int = EDGE) -> QImage | None:
    """A kernel thumbnail as an image within ``edge`` px (None when its bytes do not read as one)."""
    try:
        data = base64.b64decode(thumb.data_b64, validate=True)
    except ValueError:
        return None
    if thumb.media_type == "image/svg+xml":
        return svg_image(data, edge)
    image = QImage.fromData(data)
    if image.isNull():
        return None
    if max(image.width(), image.height()) > edge:
        image = image.scaled(edge, edge, Qt.AspectRatioMode.KeepAspectRatio,
                             Qt.TransformationMode.SmoothTransformation)
    return image


def tile(text: str, edge: int = EDGE, colour: QColor | None = None) -> QImage:
    """A framed square with ``text`` in it: a side that has no picture to show, said plainly."""
    image = QImage(edge, edge, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    ink = colour or QColor("#6b7280")
    painter = QPainter(image)
    painter.setPen(QPen(ink, 1, Qt.PenStyle.DashLine))
    painter.drawRect(0, 0, edge - 1, edge - 1)
    painter.setPen(ink)
    painter.drawText(QRectF(0, 0, edge, edge), Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return image


def resource(url: str, thumbnails: "Thumbnails", muted: QColor | None = None) -> QImage | None:
    """The image behind a detail pane's ``agentdesk-thumb:`` or ``agentdesk-tile:`` URL (None: not ours)."""
    from .ledger_detail import THUMB_URL, TILE_URL

    if url.startswith(THUMB_URL):
        return thumbnails.image(url[len(THUMB_URL):])
    if url.startswith(TILE_URL):
        return tile(url[len(TILE_URL):], thumbnails.edge, muted)
    return None


class Thumbnails(QObject):
    """Thumbnails of blobs by sha256, asked of the kernel once each; ``arrived`` when one is known."""

    arrived = Signal(str)

    def __init__(self, ledger: "LedgerDesk", edge: int = EDGE, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self.edge = edge
        self._known: dict[str, tuple[QImage | None, str]] = {}  # sha -> (image or None, words under it)
        self._asking: dict[str, asyncio.Future[None]] = {}
        self.waited: set[str] = set()  # asked for since the owner last cleared it (what its view waits for)

    def known(self, sha: str) -> bool:
        return sha in self._known

    def has_image(self, sha: str) -> bool:
        return self.image(sha) is not None

    def image(self, sha: str) -> QImage | None:
        return self._known.get(sha, (None, ""))[0]

    def size_words(self, sha: str) -> str:
        """``2880×1800`` or ``svg``: what the kernel said of the source ("" until known, or without one)."""
        return self._known.get(sha, (None, ""))[1]

    def want(self, sha: str) -> None:
        """Ask the kernel for ``sha``'s thumbnail unless it is known or already asked for."""
        if sha in self._known:
            return
        self.waited.add(sha)
        if sha in self._asking:
            return
        self._asking[sha] = asyncio.ensure_future(self._ask(sha))

    async def _ask(self, sha: str) -> None:
        try:
            thumb = await self._ledger.thumbnail(sha, self.edge)
        except Exception:  # noqa: BLE001 - a kernel gone or a refusal: the tile says "no picture"
            thumb = None
        finally:
            self._asking.pop(sha, None)
        if thumb is None:
            self._known[sha] = (None, "")
        else:
            svg = thumb.media_type == "image/svg+xml"
            size = f"{thumb.width}\u00d7{thumb.height}" if thumb.width and thumb.height else ""
            self._known[sha] = (image_of(thumb, self.edge), " ".join(w for w in (size, "svg" if svg else "") if w))
        self.arrived.emit(sha)
