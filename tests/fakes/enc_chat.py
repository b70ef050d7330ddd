"""OpenAI Chat Completions streaming (`POST /v1/chat/completions`)."""

from __future__ import annotations

import time

from .sse import frame, openai_error_body
from .turns import Text, ToolCall, Turn, new_id, split_text

NAME = "openai_chat"
error_body = openai_error_body

_FINISH = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length"}


def events(turn: Turn, model: str, body: dict) -> list[bytes]:
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    cid = new_id("chatcmpl-")
    created = int(time.time())

    def chunk(delta: dict, finish=None) -> bytes:
        c = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
             "system_fingerprint": "fp_fake",
             "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        if include_usage:
            c["usage"] = None
        return frame(c)

    out = [chunk({"role": "assistant", "content": ""})]
    tool_index = 0
    for part in turn.parts:
        if isinstance(part, Text):
            for piece in split_text(part.text, part.chunks):
                out.append(chunk({"content": piece}))
        else:
            assert isinstance(part, ToolCall)
            i = tool_index
            tool_index += 1
            out.append(chunk({"tool_calls": [{"index": i, "id": part.id or new_id("call_"), "type": "function",
                                              "function": {"name": part.name, "arguments": ""}}]}))
            for piece in split_text(part.arguments_json(), part.fragments):
                out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    stop = turn.resolved_stop
    if stop is not None:
        out.append(chunk({}, _FINISH[stop]))
        if include_usage:
            u = turn.usage
            out.append(frame({"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                              "system_fingerprint": "fp_fake", "choices": [],
                              "usage": {"prompt_tokens": u.input, "completion_tokens": u.output,
                                        "total_tokens": u.input + u.output,
                                        "prompt_tokens_details": {"cached_tokens": u.cache_read},
                                        "completion_tokens_details": {"reasoning_tokens": 0}}}))
        out.append(frame("[DONE]"))
    return out


def error_frames(message: str, sequence_number: int = 0) -> list[bytes]:
    return [frame({"error": {"message": message, "type": "server_error", "param": None, "code": "overloaded"}})]
