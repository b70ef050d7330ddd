"""The fake reads pictures in both spellings google-genai writes (camelCase parts, snake_case inside function
responses and blobs) and in the shapes the other SDKs send, and refuses what the real APIs refuse."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from tests.fakes.wire_images import WireImageError, wire_images


def png(width: int = 8, height: int = 6) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height)).save(out, "PNG")
    return out.getvalue()


B64 = base64.b64encode(png()).decode()
URLSAFE = base64.urlsafe_b64encode(png()).decode()


@pytest.mark.parametrize("outer, mime", [("inlineData", "mimeType"), ("inline_data", "mime_type"),
                                         ("inlineData", "mime_type")])
def test_gemini_both_spellings(outer, mime):
    body = {"contents": [{"role": "user", "parts": [{outer: {mime: "image/png", "data": URLSAFE}}]},
                         {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {},
                                                     "parts": [{outer: {mime: "image/png", "data": B64}}]}}]}]}
    assert [(i.role, i.width) for i in wire_images("gemini", body)] == [("user", 8), ("tool", 8)]


def test_chat_refuses_a_picture_in_a_tool_message():
    body = {"messages": [{"role": "tool", "tool_call_id": "c", "content": [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}}]}]}
    with pytest.raises(WireImageError, match="only supported in user messages"):
        wire_images("openai_chat", body)


def test_limits_of_the_real_apis():
    many = {"messages": [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                     "data": base64.b64encode(png(2100, 10)).decode()}}] * 21}]}
    with pytest.raises(WireImageError, match="many-image"):
        wire_images("anthropic", many)
    lying = {"input": [{"type": "message", "role": "user", "content": [
        {"type": "input_image", "image_url": f"data:image/jpeg;base64,{B64}"}]}]}
    with pytest.raises(WireImageError, match="media type"):
        wire_images("openai_responses", lying)
    with pytest.raises(WireImageError, match="base64"):
        wire_images("openai_responses", {"input": [{"type": "function_call_output", "call_id": "c", "output": [
            {"type": "input_image", "image_url": "data:image/png;base64,@@@"}]}]})
