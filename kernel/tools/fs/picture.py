"""``fs_read`` of a picture: recognised by its bytes (never its name), fitted and shown to the model.

The scope stays ``fs.read``: reading a picture is reading a file. The thread part (``read_picture``) reads
the whole file through the same walk as any read (up to ``MAX_SOURCE_BYTES``) and judges its taint; the
loop part (``show``) hands the bytes to the kernel's ``ImageStore``, which fits them in a worker thread of
its own. A file that says it is a picture but cannot be opened is an error result the model sees; so is an
animation or a decompression bomb, each in words.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import IO

from ...core.errors import ImageRefused, ToolFailure
from ...images.fit import MAX_SOURCE_BYTES, sniff
from ..descriptor import ToolContext, ToolOutput


@dataclass(frozen=True)
class PictureFile:
    """A picture read from the workspace, still to be fitted (on the loop's side)."""

    shown: str
    data: bytes
    fmt: str
    source: str | None  # set when a tainted agent wrote these bytes
    sha256: str = ""    # of ``data``, hashed in the thread (a 40 MB file is ~40 ms of sha256: not on the loop)


def picture_format(head: bytes) -> str | None:
    """The picture format of a file's first bytes (png, jpeg, gif, webp, bmp, tiff), or None."""
    return sniff(head)


def read_picture(fh: IO[bytes], shown: str, size: int, fmt: str, source: str | None) -> PictureFile:
    """The whole picture, read from its already-open file (in the tool's worker thread)."""
    if size > MAX_SOURCE_BYTES:
        raise ToolFailure(f"{shown} is a {fmt} image of {size:,} bytes; pictures over {MAX_SOURCE_BYTES:,} bytes "
                          "are not read")
    fh.seek(0)
    data = fh.read(MAX_SOURCE_BYTES + 1)
    return PictureFile(shown, data, fmt, source, hashlib.sha256(data).hexdigest())


async def show(ctx: ToolContext, picture: PictureFile) -> ToolOutput:
    """The picture fitted and kept, as the output the model sees (text plus the image part)."""
    digest = picture.sha256 or hashlib.sha256(picture.data).hexdigest()
    data = {"path": picture.shown, "bytes": len(picture.data), "binary": True, "sha256": digest}
    if ctx.images is None:  # a tool context without an image store (a bare test): described like any binary
        return ToolOutput(f"{picture.shown} is a {picture.fmt} image, {len(picture.data):,} bytes, sha256 {digest}",
                          data, picture.source)
    try:
        part = await ctx.images.ingest(picture.data, origin="file", label=f"fs_read {picture.shown}",
                                       path=picture.shown, untrusted=picture.source is not None, source_sha=digest)
    except ImageRefused as exc:
        raise ToolFailure(f"{picture.shown} looks like a {picture.fmt} image but cannot be shown: {exc.message}"
                          ) from None
    sent = f"{part.width}\u00d7{part.height} {part.format}, {part.size:,} bytes"
    text = f"{picture.shown}: a {picture.fmt} image ({len(picture.data):,} bytes), shown to you as {sent}"
    return ToolOutput(text, {**data, "image": {"sha256": part.sha256, "width": part.width, "height": part.height,
                                               "media_type": part.media_type}}, picture.source, (part,))
