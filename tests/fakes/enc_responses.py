"""OpenAI Responses streaming (`POST /v1/responses`, `stream: true`)."""

from __future__ import annotations

import time

from .sse import frame, openai_error_body
from .turns import Text, ToolCall, Turn, new_id, split_text

NAME = "openai_responses"
error_body = openai_error_body


def events(turn: Turn, model: str, body: dict) -> list[bytes]:
    out: list[bytes] = []
    seq = 0
    rid = new_id("resp_")
    created = int(time.time())

    def emit(payload: dict) -> None:
        nonlocal seq
        payload["sequence_number"] = seq
        seq += 1
        out.append(frame(payload, payload["type"]))

    def response(status: str, output: list, usage: dict | None, incomplete: dict | None = None) -> dict:
        return {"id": rid, "object": "response", "created_at": created, "status": status, "model": model,
                "output": output, "usage": usage, "error": None, "incomplete_details": incomplete,
                "instructions": body.get("instructions"), "parallel_tool_calls": True,
                "tool_choice": body.get("tool_choice", "auto"), "tools": body.get("tools", []),
                "temperature": 1.0, "top_p": 1.0, "text": {"format": {"type": "text"}},
                "metadata": {}, "previous_response_id": None, "store": False}

    emit({"type": "response.created", "response": response("in_progress", [], None)})
    emit({"type": "response.in_progress", "response": response("in_progress", [], None)})
    done_items: list[dict] = []
    for oi, part in enumerate(turn.parts):
        if isinstance(part, Text):
            iid = new_id("msg_")
            item = {"id": iid, "type": "message", "status": "in_progress", "role": "assistant", "content": []}
            emit({"type": "response.output_item.added", "output_index": oi, "item": item})
            emit({"type": "response.content_part.added", "item_id": iid, "output_index": oi, "content_index": 0,
                  "part": {"type": "output_text", "text": "", "annotations": [], "logprobs": []}})
            for piece in split_text(part.text, part.chunks):
                emit({"type": "response.output_text.delta", "item_id": iid, "output_index": oi,
                      "content_index": 0, "delta": piece, "logprobs": []})
            emit({"type": "response.output_text.done", "item_id": iid, "output_index": oi, "content_index": 0,
                  "text": part.text, "logprobs": []})
            done_part = {"type": "output_text", "text": part.text, "annotations": [], "logprobs": []}
            emit({"type": "response.content_part.done", "item_id": iid, "output_index": oi, "content_index": 0,
                  "part": done_part})
            final = {"id": iid, "type": "message", "status": "completed", "role": "assistant",
                     "content": [done_part]}
        else:
            assert isinstance(part, ToolCall)
            iid = new_id("fc_")
            call_id = part.id or new_id("call_")
            item = {"id": iid, "type": "function_call", "status": "in_progress", "call_id": call_id,
                    "name": part.name, "arguments": ""}
            emit({"type": "response.output_item.added", "output_index": oi, "item": item})
            args = part.arguments_json()
            for piece in split_text(args, part.fragments):
                emit({"type": "response.function_call_arguments.delta", "item_id": iid, "output_index": oi,
                      "delta": piece})
            emit({"type": "response.function_call_arguments.done", "item_id": iid, "output_index": oi,
                  "name": part.name, "arguments": args})
            final = dict(item, status="completed", arguments=args)
        emit({"type": "response.output_item.done", "output_index": oi, "item": final})
        done_items.append(final)
    stop = turn.resolved_stop
    u = turn.usage
    usage = {"input_tokens": u.input, "input_tokens_details": {"cached_tokens": u.cache_read, "cache_write_tokens": u.cache_write},
             "output_tokens": u.output, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": u.input + u.output}
    if stop in ("end_turn", "tool_use"):
        emit({"type": "response.completed", "response": response("completed", done_items, usage)})
    elif stop == "max_tokens":
        # What the real API does: a `response.incomplete` instead of `response.completed`.
        emit({"type": "response.incomplete",
              "response": response("incomplete", done_items, usage, {"reason": "max_output_tokens"})})
    return out


def error_frames(message: str, sequence_number: int = 0) -> list[bytes]:
    return [frame({"type": "error", "code": "server_error", "message": message, "param": None,
                   "sequence_number": sequence_number}, "error")]
