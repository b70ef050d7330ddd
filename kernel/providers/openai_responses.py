"""OpenAI Responses API (``POST /responses``, streamed) through the ``openai`` SDK.

The whole history is resent as input items each time (no
``previous_response_id``, ``store=False``): tool calls as ``function_call``
items and results as ``function_call_output`` items. Function-call arguments
stream as fragments keyed by item id; the call is yielded at
``response.output_item.done``, whose ``arguments`` are authoritative. Usage
exists only in ``response.completed`` (or ``response.incomplete``). The SDK
*yields* an ``error`` event instead of raising, so it is turned into a
``stream`` error here. The SDK's request building costs milliseconds per
request and grows with the conversation, so the desktop runs this adapter in
a provider host process (see ``process_host``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Mapping

from ..core.messages import ImagePart, Message, TextPart, ToolResultPart, ToolUse
from .base import ProviderRequest, StreamEvent, TextChunk, ToolCallReady, UsageReport
from .failures import broken_stream, parse_arguments, unsupported
from .image_wire import data_url, missing
from .openai_common import OpenAIAdapter, result_text

NAME = "openai"
_INCOMPLETE_REASONS = {"max_output_tokens": "max_tokens"}


class OpenAIResponsesProvider(OpenAIAdapter):
    name = NAME

    def _events(self, request: ProviderRequest, client: Any) -> AsyncIterator[StreamEvent]:
        params = request_params(request)

        def check(event: Any, started: bool) -> None:  # the SDK yields error events instead of raising
            if event.type in ("error", "response.failed"):
                raise broken_stream(NAME, _error_message(event), started=started)

        return self._pump(request, _Reply(), lambda: client.responses.create(**params, stream=True), check=check)


def request_params(request: ProviderRequest) -> dict[str, Any]:
    """The ``responses.create`` arguments for a neutral request."""
    params: dict[str, Any] = {
        "model": request.model,
        "input": [item for msg in request.messages for item in _items(msg, request.images)],
        "max_output_tokens": request.max_tokens,
        "store": False,
    }
    if request.cache_key:  # requests with one key are routed to one cache (the conversation's)
        params["prompt_cache_key"] = request.cache_key
    if request.system:
        params["instructions"] = request.system
    if request.tools:
        params["tools"] = [{"type": "function", "name": t.name, "description": t.description,
                            "parameters": dict(t.input_schema), "strict": False} for t in request.tools]
    return params


def _items(msg: Message, images: Mapping[str, bytes]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for part in msg.parts:
        match part:
            case TextPart(text=text):
                if text:
                    items.append({"type": "message", "role": msg.role, "content": text})
            case ToolUse() if msg.role == "assistant":
                items.append({"type": "function_call", "call_id": part.id, "name": part.name,
                              "arguments": json.dumps(dict(part.input), ensure_ascii=False)})
            case ToolResultPart() if msg.role == "user":
                items.append({"type": "function_call_output", "call_id": part.tool_use_id,
                              "output": _output(part, images)})
            case ImagePart() if msg.role == "user":
                items.append({"type": "message", "role": "user", "content": [_input_image(part, images)]})
            case _:
                raise unsupported(NAME, f"a {type(part).__name__} in a {msg.role} message")
    return items


def _input_image(image: ImagePart, images: Mapping[str, bytes]) -> dict[str, Any]:
    url = data_url(image, images)
    if url is None:
        return {"type": "input_text", "text": missing(image)}
    return {"type": "input_image", "image_url": url, "detail": "auto"}


def _output(part: ToolResultPart, images: Mapping[str, bytes]) -> str | list[dict[str, Any]]:
    """A ``function_call_output``'s output: text, or (with pictures) a list of ``input_text`` and ``input_image``."""
    text = result_text(part.content, part.is_error)
    if not part.images:
        return text
    return [{"type": "input_text", "text": text}, *(_input_image(i, images) for i in part.images)]


@dataclass
class _Call:
    call_id: str
    name: str
    fragments: list[str] = field(default_factory=list)


@dataclass
class _Reply:
    """Assembles Responses stream events into neutral events."""

    received: bool = False
    stop_reason: str | None = None
    calls: dict[str, _Call] = field(default_factory=dict)
    had_calls: bool = False
    request_id: str | None = None  # the response id, when the x-request-id header is missing
    model: str | None = None  # response.model: the model that answered

    def feed(self, event: Any) -> list[StreamEvent]:
        self.received = True
        response = getattr(event, "response", None) if event.type.startswith("response.") else None
        self.model = getattr(response, "model", None) or self.model
        match event.type:
            case "response.output_text.delta":
                return [TextChunk(event.delta)] if event.delta else []
            case "response.output_item.added" if event.item.type == "function_call":
                self.calls[event.item.id] = _Call(event.item.call_id, event.item.name)
            case "response.function_call_arguments.delta":
                if event.item_id in self.calls:
                    self.calls[event.item_id].fragments.append(event.delta)
            case "response.output_item.done" if event.item.type == "function_call":
                call = self.calls.pop(event.item.id, None) or _Call(event.item.call_id, event.item.name)
                self.had_calls = True
                raw = event.item.arguments if event.item.arguments is not None else "".join(call.fragments)
                return [_ready(call.call_id, event.item.name or call.name, raw)]
            case "response.completed":
                self.stop_reason = "tool_use" if self.had_calls else "end_turn"
                self.request_id = getattr(event.response, "id", None)
                return _usage(event.response)
            case "response.incomplete":
                details = event.response.incomplete_details
                reason = getattr(details, "reason", None) or "incomplete"
                self.stop_reason = _INCOMPLETE_REASONS.get(reason, reason)
                self.request_id = getattr(event.response, "id", None)
                return _usage(event.response)
        return []


def _error_message(event: Any) -> str:
    """The text of an ``error`` event or of a ``response.failed`` response's error."""
    error = event if event.type == "error" else getattr(event.response, "error", None)
    code = getattr(error, "code", None)
    message = getattr(error, "message", None) or "the response failed"
    return f"{code}: {message}" if code else message


def _ready(call_id: str, name: str, raw: str) -> ToolCallReady:
    value, error = parse_arguments(raw)
    if error is not None:
        return ToolCallReady(call_id, name, None, raw_arguments=raw, error=error)
    return ToolCallReady(call_id, name, value, raw_arguments=raw)


def _usage(response: Any) -> list[StreamEvent]:
    usage = response.usage
    if usage is None:
        return []
    details = getattr(usage, "input_tokens_details", None)
    return [UsageReport(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                        cache_read_tokens=getattr(details, "cached_tokens", None),
                        cache_write_tokens=getattr(details, "cache_write_tokens", None))]
