"""What the four adapters share about pictures: their bytes as base64 or a data URL, or, when a request
carries no bytes for one (``ProviderRequest.images`` is filled by ``kernel.images.layout``), its placeholder."""

from __future__ import annotations

import base64
from typing import Mapping

from ..core.messages import ImagePart

NOT_SENT = "not sent with this request"


def image_bytes(image: ImagePart, images: Mapping[str, bytes]) -> bytes | None:
    return images.get(image.sha256)


def image_b64(image: ImagePart, images: Mapping[str, bytes]) -> str | None:
    data = images.get(image.sha256)
    return None if data is None else base64.b64encode(data).decode("ascii")


def data_url(image: ImagePart, images: Mapping[str, bytes]) -> str | None:
    encoded = image_b64(image, images)
    return None if encoded is None else f"data:{image.media_type};base64,{encoded}"


def missing(image: ImagePart) -> str:
    return image.placeholder(NOT_SENT)
