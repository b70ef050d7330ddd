"""Pictures an MCP tool returns: ``image`` content and embedded image resources, passed through to the model.

Each picture is base64 in the server's reply; it is decoded (at most ``MAX_BASE64_CHARS``), fitted and kept
by the kernel's ``ImageStore`` like any other picture, and always marked untrusted: it is a server's
content, and text inside a picture can carry instructions. A picture that cannot be shown (not base64, a
bomb, an animation) is named in the result's text with the reason, never a failed call.
"""

from __future__ import annotations

import binascii
from typing import TYPE_CHECKING, Any

from ..core.errors import ImageRefused
from ..core.messages import ImagePart
from ..images.fit import MAX_SOURCE_BYTES
from ..images.store import decode_b64

if TYPE_CHECKING:
    from ..images.store import ImageStore

MAX_BASE64_CHARS = (MAX_SOURCE_BYTES // 3 + 1) * 4


def picture_of(block: Any) -> tuple[str, str] | None:
    """(mime type, base64 data) of a content block that is a picture: ``image`` content, or an embedded
    ``resource`` whose blob is an image; None for anything else."""
    kind = getattr(block, "type", None)
    if kind == "image":
        mime, data = getattr(block, "mime_type", None), getattr(block, "data", None)
    elif kind == "resource":
        inner = getattr(block, "resource", None)
        mime, data = getattr(inner, "mime_type", None), getattr(inner, "blob", None)
    else:
        return None
    if isinstance(mime, str) and mime.lower().startswith("image/") and isinstance(data, str):
        return mime, data
    return None


async def pictures(content: list[Any], store: "ImageStore | None", server: str,
                   tool: str) -> tuple[tuple[ImagePart, ...], dict[int, str]]:
    """The pictures of a result's ``content`` (fitted, kept), and a note per picture block (by index) for
    its text: "shown" or why not."""
    shown: list[ImagePart] = []
    notes: dict[int, str] = {}
    for index, block in enumerate(content):
        found = picture_of(block)
        if found is None:
            continue
        mime, encoded = found
        if store is None:
            continue
        if len(encoded) > MAX_BASE64_CHARS:
            notes[index] = f"[image {mime} from the server, not shown: over {MAX_SOURCE_BYTES:,} bytes]"
            continue
        try:
            data = await decode_b64(encoded)  # megabytes of base64: off the loop
            part = await store.ingest(data, origin="mcp", label=f"MCP {server} {tool}", untrusted=True)
        except (binascii.Error, ValueError):
            notes[index] = f"[image {mime} from the server, not shown: its data is not base64]"
            continue
        except ImageRefused as exc:
            notes[index] = f"[image {mime} from the server, not shown: {exc.message}]"
            continue
        shown.append(part)
        notes[index] = f"[image {len(shown)}: {part.width}\u00d7{part.height} {part.format}, shown to you]"
    return tuple(shown), notes
