"""OpenAI Chat Completions, streamed: the protocol of OpenAI-compatible servers.

This is how Ollama, vLLM, llama.cpp and LM Studio are reached: a base URL
(with ``/v1``) and any model name they serve. Tool calls arrive as argument
fragments keyed by ``index`` (``id`` and ``name`` once, in the first
fragment); they are yielded when the choice's ``finish_reason`` arrives.
Some local servers omit the call id, so one is made up from the index.
``stream_options.include_usage`` asks for the final usage chunk. Tool results go back as ``role: "tool"`` messages right after the
assistant message carrying the ``tool_calls``. Like the Responses adapter,
the desktop runs it in a provider host process for its per-request transform.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Mapping

from ..core.messages import ImagePart, Message, TextPart, ToolResultPart, ToolUse
from .base import ProviderRequest, StreamEvent, TextChunk, ToolCallReady, UsageReport
from .failures import parse_arguments, unsupported
from .image_wire import data_url, missing
from .openai_common import OpenAIAdapter, result_text

NAME = "openai-chat"
_FINISH = {"stop": "end_turn", "tool_calls": "tool_use", "function_call": "tool_use", "length": "max_tokens"}


class OpenAIChatProvider(OpenAIAdapter):
    name = NAME

    def _events(self, request: ProviderRequest, client: Any) -> AsyncIterator[StreamEvent]:
        params = request_params(request)
        return self._pump(request, _Reply(), lambda: client.chat.completions.create(
            **params, stream=True, stream_options={"include_usage": True}))


def request_params(request: ProviderRequest) -> dict[str, Any]:
    """The ``chat.completions.create`` arguments for a neutral request."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": request.system}] if request.system else []
    for msg in request.messages:
        messages.extend(_messages(msg, request.images))
    params: dict[str, Any] = {"model": request.model, "messages": messages, "max_tokens": request.max_tokens}
    if request.cache_key:  # OpenAI routes requests with one key to one cache; other servers ignore it
        params["prompt_cache_key"] = request.cache_key
    if request.tools:
        params["tools"] = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                             "parameters": dict(t.input_schema)}}
                           for t in request.tools]
    return params


def _messages(msg: Message, images: Mapping[str, bytes]) -> list[dict[str, Any]]:
    texts: list[str] = []
    pictures: list[ImagePart] = []
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for part in msg.parts:
        match part:
            case TextPart(text=text):
                texts.append(text)
            case ToolUse() if msg.role == "assistant":
                calls.append({"id": part.id, "type": "function",
                              "function": {"name": part.name,
                                           "arguments": json.dumps(dict(part.input), ensure_ascii=False)}})
            case ToolResultPart() if msg.role == "user":
                results.append({"role": "tool", "tool_call_id": part.tool_use_id,
                                "content": result_text(part.content, part.is_error)})
                pictures.extend(part.images)  # Chat Completions takes images in user messages only
            case ImagePart() if msg.role == "user":
                pictures.append(part)
            case _:
                raise unsupported(NAME, f"a {type(part).__name__} in a {msg.role} message")
    text = "".join(texts)
    if msg.role == "assistant":
        if not text and not calls:
            return []
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = calls
        return [message]
    # Tool messages must follow the assistant message that called them, before any new user text;
    # the pictures follow in that user message (the only place Chat Completions takes them).
    if pictures:
        content = ([{"type": "text", "text": text}] if text else []) + [_image_url(i, images) for i in pictures]
        return results + [{"role": "user", "content": content}]
    return results + ([{"role": "user", "content": text}] if text else [])


def _image_url(image: ImagePart, images: Mapping[str, bytes]) -> dict[str, Any]:
    url = data_url(image, images)
    if url is None:
        return {"type": "text", "text": missing(image)}
    return {"type": "image_url", "image_url": {"url": url, "detail": "auto"}}


@dataclass
class _Call:
    id: str = ""
    name: str = ""
    fragments: list[str] = field(default_factory=list)


@dataclass
class _Reply:
    """Assembles chat chunks into neutral events."""

    received: bool = False
    stop_reason: str | None = None
    calls: dict[int, _Call] = field(default_factory=dict)
    request_id: str | None = None  # the completion id, when the x-request-id header is missing
    model: str | None = None  # chunk.model: the model that answered

    def feed(self, chunk: Any) -> list[StreamEvent]:
        self.received = True
        self.request_id = self.request_id or getattr(chunk, "id", None)
        self.model = self.model or getattr(chunk, "model", None)
        out: list[StreamEvent] = []
        for choice in chunk.choices or ():
            if choice.index != 0:
                continue
            delta = choice.delta
            if delta is not None and delta.content:
                out.append(TextChunk(delta.content))
            for tc in (delta.tool_calls if delta is not None else None) or ():
                call = self.calls.setdefault(tc.index, _Call())
                call.id = call.id or (tc.id or "")
                if tc.function is not None:
                    call.name = call.name or (tc.function.name or "")
                    if tc.function.arguments:
                        call.fragments.append(tc.function.arguments)
            if choice.finish_reason:
                out.extend(self._flush_calls())
                self.stop_reason = _FINISH.get(choice.finish_reason, choice.finish_reason)
        if chunk.usage is not None:
            details = getattr(chunk.usage, "prompt_tokens_details", None)
            out.append(UsageReport(input_tokens=chunk.usage.prompt_tokens,
                                   output_tokens=chunk.usage.completion_tokens,
                                   cache_read_tokens=getattr(details, "cached_tokens", None)))
        return out

    def _flush_calls(self) -> list[StreamEvent]:
        ready: list[StreamEvent] = [_ready(self.calls[i], i) for i in sorted(self.calls)]
        self.calls.clear()
        return ready


def _ready(call: _Call, index: int) -> ToolCallReady:
    raw = "".join(call.fragments)
    call_id = call.id or f"call_{index}"
    value, error = parse_arguments(raw)
    if error is not None:
        return ToolCallReady(call_id, call.name, None, raw_arguments=raw, error=error)
    return ToolCallReady(call_id, call.name, value, raw_arguments=raw)
