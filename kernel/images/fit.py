"""Make a picture fit every provider once, at ingestion: Pillow, called from a worker thread.

Long edge ≤ 1568 px and ≤ 1.15 megapixels is the size Anthropic, OpenAI and Gemini all take without a
server-side resize (Anthropic's documented optimum; OpenAI's high-detail tiles and Gemini's 768-px tiles
cover it), so a picture fitted here is never refused for its size and never resized twice. A PNG, JPEG or
WebP that already fits (and is upright and ≤ ``KEEP_MAX_BYTES``) is kept byte for byte. Otherwise it is
re-encoded: PNG when the source was lossless and the result stays ≤ ``PNG_MAX_BYTES`` (screenshot text
stays crisp), else JPEG at quality 85 (alpha flattened on white): every provider and every local server
(llama.cpp's stb_image has no WebP) reads JPEG. Measured 2026-12-03 on the 2-core machine: a 2880×1800
screenshot fits in about 0.2 s (``benchmarks/image_bench.py``).

Refused with a clear reason (``ImageRefused``): bytes Pillow cannot read, animations, more than
``MAX_PIXELS`` (decompression bombs: checked from the header, before any pixel is decoded; Pillow's own
``MAX_IMAGE_PIXELS`` is set to the same limit as a second guard) and sources over ``MAX_SOURCE_BYTES``.
An 8,001-px-wide picture within the pixel limit is resized, not refused. Pillow is imported here only,
on first use.
"""

from __future__ import annotations

import io
import os
import tempfile
import warnings
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from ..core.errors import ImageRefused

if TYPE_CHECKING:
    from PIL.Image import Image

LONG_EDGE = 1568
MAX_AREA = 1_150_000                 # pixels
MAX_PIXELS = 50_000_000              # 8001×6000 is within it; 50,000×50,000 (a bomb) is not
MAX_SOURCE_BYTES = 40 * 1024 * 1024  # a source file larger than this is refused before it is opened
KEEP_MAX_BYTES = 1_500_000           # a fitting original larger than this is re-encoded
PNG_MAX_BYTES = 1_000_000            # a re-encoded PNG larger than this becomes a JPEG
JPEG_QUALITY = 85
_KEPT = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}
_READ = ("PNG", "JPEG", "WEBP", "GIF", "BMP", "TIFF")


@dataclass(frozen=True)
class Fitted:
    """A picture made to fit: the bytes to send, their media type and size, and the source's size."""

    data: bytes
    media_type: str
    width: int
    height: int
    source_width: int
    source_height: int
    source_format: str

    @property
    def resized(self) -> bool:
        return (self.width, self.height) != (self.source_width, self.source_height)


def sniff(head: bytes) -> str | None:
    """The picture format its first bytes say (png, jpeg, gif, webp, bmp, tiff), or None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[:2] == b"BM" and len(head) >= 26:
        return "bmp"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    return None


def target_size(width: int, height: int) -> tuple[int, int]:
    """The largest size with the same shape within the long edge and the area."""
    scale = min(1.0, LONG_EDGE / max(width, height), (MAX_AREA / (width * height)) ** 0.5)
    if scale >= 1.0:
        return width, height
    w, h = max(1, int(width * scale)), max(1, int(height * scale))
    while w * h > MAX_AREA or max(w, h) > LONG_EDGE:  # rounding may leave it a pixel over
        w, h = max(1, w - 1), max(1, h - 1)
    return w, h


def fit(data: bytes) -> Fitted:
    """``data`` fitted (see the module's docstring); raises ``ImageRefused``. Blocking: call it in a thread."""
    if len(data) > MAX_SOURCE_BYTES:
        raise ImageRefused("huge", f"the image is {len(data):,} bytes; at most {MAX_SOURCE_BYTES:,} are read")
    from PIL import Image, ImageOps, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=_READ)
            return _fit_open(image, data, Image, ImageOps)
    except ImageRefused:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageRefused("huge", f"the image has more than {MAX_PIXELS:,} pixels; it is not opened") from exc
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError, MemoryError) as exc:
        raise ImageRefused("corrupt", f"the file is not a readable image ({type(exc).__name__}: {exc})") from exc


def _fit_open(image: "Image", data: bytes, Image: Any, ImageOps: Any) -> Fitted:  # noqa: N803 - the modules
    width, height = image.size
    if width * height > MAX_PIXELS:
        raise ImageRefused("huge", f"the image is {width:,}\u00d7{height:,}: it has more than {MAX_PIXELS:,} "
                                   "pixels; it is not opened")
    frames = getattr(image, "n_frames", 1)
    if getattr(image, "is_animated", False) and isinstance(frames, int) and frames > 1:
        raise ImageRefused("animated", f"the image is animated ({frames} frames); send one frame as a PNG instead")
    fmt = image.format or "?"
    upright = image.getexif().get(0x0112, 1) == 1
    w, h = target_size(width, height)
    if fmt in _KEPT and (w, h) == (width, height) and upright and len(data) <= KEEP_MAX_BYTES:
        image.load()  # a truncated file fails here, not at the provider
        return Fitted(data, _KEPT[fmt], width, height, width, height, fmt.lower())
    if fmt == "JPEG":
        image.draft("RGB", (w, h))  # decode at 1/2, 1/4 or 1/8 scale when that still covers the target
    image = ImageOps.exif_transpose(image)
    w, h = target_size(*image.size) if not upright else (w, h)
    if image.size != (w, h):
        image = image.resize((w, h), Image.Resampling.LANCZOS, reducing_gap=3.0)
    lossless = fmt in ("PNG", "GIF", "BMP", "TIFF") or (fmt == "WEBP" and image.info.get("lossless"))
    if lossless:
        png = _encode(image if image.mode in ("RGB", "RGBA", "L", "LA", "P") else image.convert("RGBA"), "PNG")
        if len(png) <= PNG_MAX_BYTES:
            return Fitted(png, "image/png", w, h, width, height, fmt.lower())
    return Fitted(_encode(_flat(image, Image), "JPEG"), "image/jpeg", w, h, width, height, fmt.lower())


def _flat(image: "Image", Image: Any) -> "Image":  # noqa: N803
    """RGB for JPEG: transparency flattened on white."""
    if image.mode in ("RGBA", "LA", "P", "PA") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        out = rgba.copy().convert("RGB")
        out.paste((255, 255, 255), (0, 0, *rgba.size))
        out.paste(rgba, mask=rgba.getchannel("A"))
        return out
    return image if image.mode == "RGB" else image.convert("RGB")


def scratch() -> IO[bytes]:
    """A real file to encode into (an anonymous memory file on Linux). Pillow encodes into a file descriptor
    with the GIL released; into a ``BytesIO`` it holds the GIL for each block, and a JPEG with ``optimize``
    is one block: measured 2026-12-03 on the loaded 2-core machine, a 1356×847 JPEG held the event loop's
    thread off for ~100 ms from a worker thread through a BytesIO, ~20 ms (the machine's own noise) through
    a file."""
    if hasattr(os, "memfd_create"):
        return open(os.memfd_create("agentdesk-picture", os.MFD_CLOEXEC), "w+b")
    return tempfile.TemporaryFile()


def _encode(image: "Image", fmt: str) -> bytes:
    with scratch() as out:
        if fmt == "PNG":
            image.save(out, "PNG", optimize=False, compress_level=6)
        else:
            image.save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
        out.seek(0)
        return out.read()
