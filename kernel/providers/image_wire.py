"""What the four adapters share about pictures: their bytes as base64 or a data URL, or, when a request
carries no bytes for one (``ProviderRequest.images`` is filled by ``kernel.images.layout``), its placeholder."""

from __future__ import annotations

import base64
from collections import OrderedDict
from typing import Mapping

from ..core.messages import ImagePart

NOT_SENT = "not sent with this request"


def image_bytes(image: ImagePart, images: Mapping[str, bytes]) -> bytes | None:
    return images.get(image.sha256)


_ENCODED: OrderedDict[tuple[str, int, bytes], str] = OrderedDict()  # a conversation resends its pictures with every request
_ENCODED_CHARS = 32 * 1024 * 1024
_held = 0


def encode_b64(data: bytes) -> str:
    """``data`` as base64, a chunk at a time: ``binascii`` holds the GIL while it encodes, so a worker thread
    encoding a picture in one call would hold the event loop off for as long (``ImageStore`` calls this in
    its worker thread and hands the text to ``keep_b64``)."""
    step = 3 * 64 * 1024
    return "".join(base64.b64encode(data[i:i + step]).decode("ascii") for i in range(0, len(data), step))


def keep_b64(sha: str, data: bytes, encoded: str) -> None:
    """Remember ``encoded`` (``data``'s base64, made off the loop) for the requests that will send it."""
    global _held
    key = (sha, len(data), data[-32:])
    if key in _ENCODED:
        return
    _ENCODED[key] = encoded
    _held += len(encoded)
    while _held > _ENCODED_CHARS and len(_ENCODED) > 1:
        _, old = _ENCODED.popitem(last=False)
        _held -= len(old)


def image_b64(image: ImagePart, images: Mapping[str, bytes]) -> str | None:
    """The picture's bytes as base64, encoded once per picture (by its sha256) while it stays in a small
    cache, usually by ``ImageStore`` at ingestion, off the loop: a request is built on the event loop, and 8
    pictures of 1.5 MB are ~10 ms of encoding each time."""
    data = images.get(image.sha256)
    if data is None:
        return None
    key = (image.sha256, len(data), data[-32:])  # the name, and a check that these are the bytes it names
    hit = _ENCODED.get(key)
    if hit is not None:
        _ENCODED.move_to_end(key)
        return hit
    encoded = base64.b64encode(data).decode("ascii")  # a picture ingested long ago: encoded once more
    keep_b64(image.sha256, data, encoded)
    return encoded


def data_url(image: ImagePart, images: Mapping[str, bytes]) -> str | None:
    encoded = image_b64(image, images)
    return None if encoded is None else f"data:{image.media_type};base64,{encoded}"


def missing(image: ImagePart) -> str:
    return image.placeholder(NOT_SENT)
