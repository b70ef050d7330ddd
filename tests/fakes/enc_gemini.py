"""Gemini `:streamGenerateContent?alt=sse` (google-genai)."""

from __future__ import annotations

from .sse import frame, gemini_error_body
from .turns import Text, ToolCall, Turn, new_id, split_text

NAME = "gemini"
error_body = gemini_error_body

_FINISH = {"end_turn": "STOP", "tool_use": "STOP", "max_tokens": "MAX_TOKENS"}


def events(turn: Turn, model: str, body: dict) -> list[bytes]:
    rid = turn.request_id or new_id("gresp")  # Gemini has no request-id header: its responseId is the id
    pieces: list[dict] = []
    for part in turn.parts:
        if isinstance(part, Text):
            pieces.extend({"text": t} for t in split_text(part.text, part.chunks))
        else:
            assert isinstance(part, ToolCall)
            call: dict = {"functionCall": {"name": part.name, "args": part.gemini_args(),
                                           "id": part.id or new_id("fc_")}}
            if part.thought_signature is not None:
                call["thoughtSignature"] = part.thought_signature
            pieces.append(call)
    if not pieces:
        pieces = [{"text": ""}]
    stop = turn.resolved_stop
    u = turn.usage
    out = []
    n = len(pieces)
    for i, p in enumerate(pieces):
        last = i == n - 1
        cand: dict = {"content": {"role": "model", "parts": [p]}, "index": 0}
        if last and stop is not None:
            cand["finishReason"] = _FINISH[stop]
        # Running totals: prompt count is known up front, output grows to the final value.
        out_so_far = (u.output * (i + 1)) // n
        meta = {"promptTokenCount": u.input, "candidatesTokenCount": out_so_far, "totalTokenCount": u.input + out_so_far}
        if u.cache_read:
            meta["cachedContentTokenCount"] = u.cache_read
        chunk = {"candidates": [cand], "usageMetadata": meta,
                 "modelVersion": model, "responseId": rid}
        out.append(frame(chunk))
    return out


def error_frames(message: str, sequence_number: int = 0) -> list[bytes]:
    return [frame({"error": {"code": 503, "message": message, "status": "UNAVAILABLE"}})]
