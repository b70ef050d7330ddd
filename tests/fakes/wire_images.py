"""Pictures in a request body, read the way each real API reads them, and refused where it would refuse.

Accepted shapes (what the installed SDKs send, checked 2026-12-03 by dumping their request bodies):
- Anthropic: ``{"type": "image", "source": {"type": "base64", "media_type", "data"}}`` in a user turn's
  content or inside a ``tool_result``'s content list.
- OpenAI Responses: ``{"type": "input_image", "image_url": "data:…;base64,…"}`` in a user message's content
  list or in a ``function_call_output``'s ``output`` list.
- Chat Completions: ``{"type": "image_url", "image_url": {"url": "data:…"}}`` in a user message's content
  list only; in a ``tool`` message it is refused, as OpenAI refuses it.
- Gemini: a part's ``inlineData`` (google-genai writes ``mime_type`` in snake_case inside it) and, for
  multimodal function responses, ``functionResponse.parts[].inline_data`` (snake_case throughout): both
  spellings of both names are read.

Limits, as the real services document them: at most 5 MB and 8,000 px on the long edge per picture; with
more than 20 pictures in one Anthropic request, at most 2,000 px each (the case that ends a screenshot-heavy
session with a 400); at most 20 MB of inline data per Gemini request; the declared media type must be what
the bytes are (Anthropic refuses a PNG declared as JPEG).
"""

from __future__ import annotations

import base64
import binascii
import io
from dataclasses import dataclass
from typing import Any

MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_EDGE = 8000
MANY_IMAGES = 20
MANY_IMAGES_EDGE = 2000
GEMINI_INLINE_MAX = 20 * 1024 * 1024
_MAGIC = {"image/png": (b"\x89PNG",), "image/jpeg": (b"\xff\xd8\xff",), "image/gif": (b"GIF8",),
          "image/webp": (b"RIFF",)}


class WireImageError(ValueError):
    """A picture the real API would refuse (the message says why, as a 400's would)."""


@dataclass(frozen=True)
class WireImage:
    role: str            # "user" (a user turn) or "tool" (inside a tool result)
    media_type: str
    data: bytes
    width: int
    height: int


def wire_images(protocol: str, body: dict) -> list[WireImage]:
    """Every picture in ``body``, in order; raises WireImageError for one the real API would refuse."""
    try:
        found = _READERS[protocol](body)
    except (AttributeError, TypeError):  # not the shape the SDKs send (a string input, a test's odd body)
        return []
    # google-genai writes bytes as URL-safe base64 (pydantic's base64), which Google's JSON parsing accepts.
    alphabet = b"-_" if protocol == "gemini" else None
    images = [_checked(role, media, text, alphabet) for role, media, text in found]
    _check_request(protocol, images)
    return images


def _checked(role: str, media_type: Any, encoded: Any, alphabet: bytes | None) -> WireImage:
    if media_type not in _MAGIC:
        raise WireImageError(f"unsupported image media type {media_type!r}")
    if not isinstance(encoded, str):
        raise WireImageError("image data must be a base64 string")
    try:
        urlsafe = alphabet is not None and ("-" in encoded or "_" in encoded)
        data = base64.b64decode(encoded, altchars=alphabet if urlsafe else None, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise WireImageError(f"image data is not valid base64: {exc}") from None
    if len(data) > MAX_IMAGE_BYTES:
        raise WireImageError(f"image exceeds 5 MB maximum: {len(data)} bytes > {MAX_IMAGE_BYTES} bytes")
    if not data.startswith(_MAGIC[media_type]):
        raise WireImageError(f"Image does not match the provided media type {media_type}")
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
    except Exception as exc:  # noqa: BLE001 - any unreadable picture is the API's 400
        raise WireImageError(f"Could not process image: {exc}") from None
    if max(width, height) > MAX_EDGE:
        raise WireImageError(f"image dimensions exceed max allowed size: {width}x{height} > {MAX_EDGE} pixels")
    return WireImage(role, media_type, data, width, height)


def _check_request(protocol: str, images: list[WireImage]) -> None:
    if protocol == "anthropic" and len(images) > MANY_IMAGES:
        for image in images:
            if max(image.width, image.height) > MANY_IMAGES_EDGE:
                raise WireImageError(f"image dimensions exceed max allowed size for many-image requests: "
                                     f"{image.width}x{image.height} > {MANY_IMAGES_EDGE} pixels")
    if protocol == "gemini" and sum(len(i.data) for i in images) > GEMINI_INLINE_MAX:
        raise WireImageError("Request payload size exceeds the limit: 20 MB of inline data")


def _data_url(url: Any) -> tuple[str | None, str | None]:
    if not isinstance(url, str) or not url.startswith("data:") or ";base64," not in url:
        raise WireImageError("image_url must be a base64 data URL here (the fake fetches nothing)")
    head, _, data = url.partition(";base64,")
    return head[5:], data


def _anthropic(body: dict) -> list[tuple[str, Any, Any]]:
    out = []
    for message in body.get("messages") or ():
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if block.get("type") == "image":
                out.append(_anthropic_block(message.get("role"), block))
            elif block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                out.extend(_anthropic_block("tool", b) for b in block["content"] if b.get("type") == "image")
    return out


def _anthropic_block(role: Any, block: dict) -> tuple[str, Any, Any]:
    source = block.get("source") or {}
    if role == "assistant":
        raise WireImageError("images are not allowed in assistant turns")
    if source.get("type") != "base64":
        raise WireImageError("image source type must be base64 here")
    return str(role), source.get("media_type"), source.get("data")


def _responses(body: dict) -> list[tuple[str, Any, Any]]:
    out = []
    for item in body.get("input") or ():
        kind = item.get("type", "message")
        if kind == "message" and isinstance(item.get("content"), list):
            out.extend(("user", *_data_url(c.get("image_url"))) for c in item["content"] if c.get("type") == "input_image")
        elif kind == "function_call_output" and isinstance(item.get("output"), list):
            out.extend(("tool", *_data_url(c.get("image_url"))) for c in item["output"] if c.get("type") == "input_image")
    return out


def _chat(body: dict) -> list[tuple[str, Any, Any]]:
    out = []
    for message in body.get("messages") or ():
        content = message.get("content")
        for part in content if isinstance(content, list) else ():
            if part.get("type") != "image_url":
                continue
            if message.get("role") != "user":
                raise WireImageError(f"Invalid content type: image_url is only supported in user messages, "
                                     f"not in {message.get('role')} messages")
            out.append(("user", *_data_url((part.get("image_url") or {}).get("url"))))
    return out


def _either(mapping: dict, camel: str, snake: str) -> Any:
    return mapping.get(camel, mapping.get(snake))


def _gemini(body: dict) -> list[tuple[str, Any, Any]]:
    out = []
    for content in body.get("contents") or ():
        for part in content.get("parts") or ():
            inline = _either(part, "inlineData", "inline_data")
            if inline is not None:
                out.append(("user", _either(inline, "mimeType", "mime_type"), inline.get("data")))
            response = _either(part, "functionResponse", "function_response")
            for media in (response or {}).get("parts") or ():
                inner = _either(media, "inlineData", "inline_data")
                if inner is not None:
                    out.append(("tool", _either(inner, "mimeType", "mime_type"), inner.get("data")))
    return out


_READERS = {"anthropic": _anthropic, "openai_responses": _responses, "openai_chat": _chat, "gemini": _gemini}
