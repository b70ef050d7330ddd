"""Anthropic Messages streaming (`POST /v1/messages`, `stream: true`)."""

from __future__ import annotations

from .sse import anthropic_error_body, frame
from .turns import Text, ToolCall, Turn, new_id, split_text

NAME = "anthropic"
error_body = anthropic_error_body

_STOP = {"end_turn": "end_turn", "tool_use": "tool_use", "max_tokens": "max_tokens", None: None}


def events(turn: Turn, model: str, body: dict) -> list[bytes]:
    out: list[bytes] = []
    msg_id = new_id("msg_")
    u = turn.usage  # Anthropic counts uncached input apart from the cache's
    out.append(frame({
        "type": "message_start",
        "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": u.input - u.cache_read - u.cache_write, "output_tokens": 1,
                      "cache_creation_input_tokens": u.cache_write, "cache_read_input_tokens": u.cache_read},
        },
    }, "message_start"))
    for index, part in enumerate(turn.parts):
        if isinstance(part, Text):
            out.append(frame({"type": "content_block_start", "index": index,
                              "content_block": {"type": "text", "text": ""}}, "content_block_start"))
            for piece in split_text(part.text, part.chunks):
                out.append(frame({"type": "content_block_delta", "index": index,
                                  "delta": {"type": "text_delta", "text": piece}}, "content_block_delta"))
        else:
            assert isinstance(part, ToolCall)
            out.append(frame({"type": "content_block_start", "index": index,
                              "content_block": {"type": "tool_use", "id": part.id or new_id("toolu_"),
                                                "name": part.name, "input": {}}}, "content_block_start"))
            for piece in [""] + split_text(part.arguments_json(), part.fragments):
                out.append(frame({"type": "content_block_delta", "index": index,
                                  "delta": {"type": "input_json_delta", "partial_json": piece}},
                                 "content_block_delta"))
        out.append(frame({"type": "content_block_stop", "index": index}, "content_block_stop"))
    stop = turn.resolved_stop
    if stop is not None:
        out.append(frame({"type": "message_delta",
                          "delta": {"stop_reason": _STOP[stop], "stop_sequence": None},
                          "usage": {"output_tokens": turn.usage.output}}, "message_delta"))
        out.append(frame({"type": "message_stop"}, "message_stop"))
    return out


def error_frames(message: str, sequence_number: int = 0) -> list[bytes]:
    return [frame({"type": "error", "error": {"type": "overloaded_error", "message": message}}, "error")]
