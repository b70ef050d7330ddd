"""Pictures a person attaches to a message (a paste, a dropped file, ``agentdesk ask --image``), before it is sent.

They cross the socket as base64 text (the codec carries no bytes), at most ``MAX_BASE64_CHARS``; they are
fitted and kept like every picture (``ImageStore``), and the kernel remembers which pictures were attached
to which agent, so ``send`` takes only those: a client cannot name an arbitrary blob of the ledger (a
file's old contents) and have it shown to a model.
"""

from __future__ import annotations

import binascii
from typing import TYPE_CHECKING

from ..core.json_safe import clean_text
from ..core.messages import ImagePart
from ..images.fit import MAX_SOURCE_BYTES
from ..images.store import decode_b64

if TYPE_CHECKING:
    from ..images.store import ImageStore

MAX_BASE64_CHARS = (MAX_SOURCE_BYTES // 3 + 1) * 4
ORIGINS = ("paste", "file")
LABEL_MAX = 200


class Attachments:
    def __init__(self, images: "ImageStore") -> None:
        self._images = images
        self._attached: dict[str, set[str]] = {}

    async def attach(self, agent_id: str, data_b64: str, origin: str, label: str) -> ImagePart:
        """A picture attached to ``agent_id``'s next message; ValueError or ImageRefused when it cannot be."""
        if origin not in ORIGINS:
            raise ValueError(f"an attached picture's origin is one of {', '.join(ORIGINS)}, not {origin[:40]!r}")
        if not isinstance(data_b64, str) or len(data_b64) > MAX_BASE64_CHARS:
            raise ValueError(f"an attached picture is base64 text of at most {MAX_SOURCE_BYTES:,} bytes")
        try:
            data = await decode_b64(data_b64)
        except (binascii.Error, ValueError):
            raise ValueError("an attached picture must be base64 text") from None
        words = clean_text(label)[:LABEL_MAX] or ("pasted image" if origin == "paste" else "attached image")
        part = await self._images.ingest(data, origin="paste" if origin == "paste" else "file", label=words)
        self._attached.setdefault(agent_id, set()).add(part.sha256)
        return part

    def admit(self, agent_id: str, part: ImagePart) -> None:
        """A picture the kernel itself took in for ``agent_id`` (a chat channel's photo), to send with its next
        message."""
        self._attached.setdefault(agent_id, set()).add(part.sha256)

    def check(self, agent_id: str, images: tuple[ImagePart, ...]) -> tuple[ImagePart, ...]:
        """``images`` when every one was attached to ``agent_id`` here (ValueError otherwise)."""
        known = self._attached.get(agent_id, set())
        for image in images:
            if not isinstance(image, ImagePart) or image.sha256 not in known:
                raise ValueError("send takes only pictures attached to this agent with attach_image")
        return tuple(images)
