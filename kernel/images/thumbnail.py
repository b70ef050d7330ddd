"""A small picture of a stored blob, for the ledger's detail and the undo confirmation (before and after).

The blob store keeps whole files: a picture an agent wrote may be megabytes, and an attached desktop reads
over a socket. So the kernel sends a thumbnail, never the file: a raster picture (PNG, JPEG, WebP, GIF,
BMP, TIFF) is opened with the same pixel limit as fitting (a bomb is refused from its header) and reduced
to at most ``edge`` pixels a side as PNG (at most ``MAX_EDGE`` = 512, so ≤ ~1 MB base64 in the worst case
and usually a few KB); an SVG is cleaned (``svg.clean_svg``: no DTD, scripts or outside references) and
sent as its cleaned text, at most ``svg.MAX_SVG_BYTES``, for the desktop to draw as a picture. Anything
else (text files, damaged pictures) has no thumbnail: None. Blocking; the desk calls it in a thread.
"""

from __future__ import annotations

import base64
import io
import warnings
from dataclasses import dataclass

from .fit import MAX_PIXELS, scratch, sniff
from .svg import clean_svg, looks_like_svg

MAX_EDGE = 512
_RASTER = ("png", "jpeg", "webp", "gif", "bmp", "tiff")
_FORMATS = tuple(name.upper() for name in _RASTER)


@dataclass(frozen=True)
class Thumbnail:
    """A picture small enough to show: ``data_b64`` is PNG (``image/png``) or cleaned SVG (``image/svg+xml``);
    ``width``×``height`` is the source's size (0×0 when an SVG does not say)."""

    media_type: str
    data_b64: str
    width: int
    height: int
    source_bytes: int


def thumbnail(data: bytes, edge: int = 256) -> Thumbnail | None:
    """A thumbnail of ``data`` at most ``edge`` px a side (clamped to 16..``MAX_EDGE``), or None."""
    edge = max(16, min(MAX_EDGE, int(edge)))
    if sniff(data[:32]) in _RASTER:
        return _raster(data, edge)
    if looks_like_svg(data):
        cleaned = clean_svg(data)
        if cleaned is None:
            return None
        w, h = _svg_size(cleaned)
        return Thumbnail("image/svg+xml", base64.b64encode(cleaned).decode("ascii"), w, h, len(data))
    return None


def _raster(data: bytes, edge: int) -> Thumbnail | None:
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image: Image.Image = Image.open(io.BytesIO(data), formats=_FORMATS)  # never EPS, PSD, …
            width, height = image.size
            if width * height > MAX_PIXELS:
                return None
            if image.format == "JPEG":
                image.draft("RGB", (edge, edge))
            image.thumbnail((edge, edge), Image.Resampling.LANCZOS)
            if image.mode not in ("RGB", "RGBA", "L", "LA", "P"):
                image = image.convert("RGBA")
            with scratch() as out:  # a real file: Pillow encodes with the GIL released
                image.save(out, "PNG")
                out.seek(0)
                encoded = out.read()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning, OSError, ValueError, SyntaxError,
            EOFError, MemoryError):
        return None
    return Thumbnail("image/png", base64.b64encode(encoded).decode("ascii"), width, height, len(data))


def _svg_size(cleaned: bytes) -> tuple[int, int]:
    import re

    head = cleaned[:2048].decode("utf-8", "replace")
    sizes = []
    for name in ("width", "height"):
        found = re.search(rf'\s{name}="\s*([0-9.]+)\s*(px)?"', head)
        sizes.append(int(float(found.group(1))) if found else 0)
    return sizes[0], sizes[1]
