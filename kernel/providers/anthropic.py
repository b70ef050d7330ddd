"""Anthropic Messages through the official ``anthropic`` SDK (async client).

Uses ``messages.create(stream=True)`` and reads the raw events: it is the
cheapest path (about 1.3 ms of CPU per request, flat with conversation length,
so it runs on the caller's loop), and the stream helper would parse tool JSON
as it arrives and raise mid-stream on a malformed fragment, where we want a
``ToolCallReady(input=None, error=...)``. Tool input fragments are assembled
per content block and parsed once at ``content_block_stop``. Input usage is
reported at ``message_start`` and output usage at ``message_delta``; counts in
``message_delta`` replace earlier ones. Raw ``httpx2`` transport errors escape
this SDK mid-stream, so they are caught beside the SDK's own classes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, AsyncIterator, Mapping

from ..core.messages import ImagePart, Message, TextPart, ToolResultPart, ToolUse
from .adapter import SdkAdapter, pump
from .base import ProviderRequest, StreamEvent, TextChunk, ToolCallReady, UsageReport
from .image_wire import image_b64, missing
from .failures import broken_stream, describe, error_detail, parse_arguments, status_error, unsupported
from ..core.errors import ProviderError, ProviderErrorKind
from . import lazy_inits

lazy_inits.install()  # before this process first imports anthropic: its re-export-only packages load name by name

NAME = "anthropic"
# Error types Anthropic may send in an `event: error` frame, which the SDK raises with HTTP status 200.
_STREAM_ERROR_KINDS: dict[str | None, ProviderErrorKind] = {
    "overloaded_error": "overloaded", "rate_limit_error": "rate_limit", "api_error": "server"}


class AnthropicProvider(SdkAdapter):
    name = NAME
    sdk_modules = ("anthropic", "httpx2")

    def _make_client(self) -> Any:
        import anthropic

        return anthropic.AsyncAnthropic(api_key=self._api_key, base_url=self._base_url,
                                        timeout=self._timeout_s, max_retries=0)

    def _events(self, request: ProviderRequest, client: Any) -> AsyncIterator[StreamEvent]:
        import anthropic
        import httpx2

        reply = _Reply()
        params = request_params(request)

        def fail(exc: BaseException, started: bool) -> Exception:
            return _failure(exc, request.model, self._base_url, reply.received, started)  # type: ignore[arg-type]

        return pump(NAME, lambda: client.messages.create(**params, stream=True), reply,
                    (anthropic.AnthropicError, httpx2.TransportError, ValueError), fail)


def request_params(request: ProviderRequest) -> dict[str, Any]:
    """The ``messages.create`` arguments for a neutral request."""
    params: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": _messages(request),
    }
    if request.system:
        params["system"] = request.system if not request.cache_ttl else [
            {"type": "text", "text": request.system, "cache_control": cache_control(request.cache_ttl)}]
    if request.tools:
        params["tools"] = [{"name": t.name, "description": t.description, "input_schema": dict(t.input_schema)}
                           for t in request.tools]
    return params


def cache_control(ttl: str) -> dict[str, str]:
    """A breakpoint: the prefix up to here is cached ("5m" is the API's default TTL, so it is left out)."""
    return {"type": "ephemeral", "ttl": ttl} if ttl == "1h" else {"type": "ephemeral"}


def _messages(request: ProviderRequest) -> list[dict[str, Any]]:
    """The messages, with a breakpoint on the last block of each message in ``cache_breaks``
    (at most three: with the system prompt's, the API allows four)."""
    breaks = set(sorted(request.cache_breaks)[-3:])
    out: list[dict[str, Any]] = []
    for index, msg in enumerate(request.messages):
        message = _message(msg, request.images)
        if not message["content"]:
            continue
        if index in breaks:
            message["content"][-1] = {**message["content"][-1], "cache_control": cache_control("5m")}
        out.append(message)
    return out


def _message(msg: Message, images: Mapping[str, bytes]) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    blocks: list[dict[str, Any]] = []
    for part in msg.parts:
        match part:
            case TextPart(text=text):
                if text:
                    blocks.append({"type": "text", "text": text})
            case ToolUse() if msg.role == "assistant":
                blocks.append({"type": "tool_use", "id": part.id, "name": part.name, "input": dict(part.input)})
            case ToolResultPart() if msg.role == "user":
                block: dict[str, Any] = {"type": "tool_result", "tool_use_id": part.tool_use_id,
                                         "content": _result_content(part, images)}
                if part.is_error:
                    block["is_error"] = True
                results.append(block)
            case ImagePart() if msg.role == "user":
                blocks.append(_image_block(part, images))
            case _:
                raise unsupported(NAME, f"a {type(part).__name__} in a {msg.role} message")
    # Anthropic wants tool results ahead of any text in the same user turn.
    return {"role": msg.role, "content": results + blocks}


def _image_block(image: ImagePart, images: Mapping[str, bytes]) -> dict[str, Any]:
    """A picture as a content block (in a user turn, or inside a ``tool_result``'s content)."""
    data = image_b64(image, images)
    if data is None:
        return {"type": "text", "text": missing(image)}
    return {"type": "image", "source": {"type": "base64", "media_type": image.media_type, "data": data}}


def _result_content(part: ToolResultPart, images: Mapping[str, bytes]) -> str | list[dict[str, Any]]:
    """A tool result's content: its text, or its text and its pictures as blocks."""
    if not part.images:
        return part.content
    text = [{"type": "text", "text": part.content}] if part.content else []
    return text + [_image_block(i, images) for i in part.images]


@dataclass
class _ToolBlock:
    id: str
    name: str
    fragments: list[str] = field(default_factory=list)


@dataclass
class _Reply:
    """Assembles raw stream events into neutral events."""

    received: bool = False
    stop_reason: str | None = None
    tools: dict[int, _ToolBlock] = field(default_factory=dict)
    input_parts: dict[str, int] = field(default_factory=dict)
    request_id: str | None = None  # the message id, when the request-id header is missing
    model: str | None = None  # message.model: the model that answered

    def feed(self, event: Any) -> list[StreamEvent]:
        self.received = True
        match event.type:
            case "message_start":
                self.request_id = getattr(event.message, "id", None)
                self.model = getattr(event.message, "model", None)
                self._take_input(event.message.usage)
                return [self._input_report()]
            case "content_block_start":
                block = event.content_block
                if block.type == "tool_use":
                    self.tools[event.index] = _ToolBlock(block.id, block.name)
            case "content_block_delta":
                delta = event.delta
                if delta.type == "text_delta" and delta.text:
                    return [TextChunk(delta.text)]
                if delta.type == "input_json_delta" and event.index in self.tools:
                    self.tools[event.index].fragments.append(delta.partial_json)
            case "content_block_stop":
                tool = self.tools.pop(event.index, None)
                if tool is not None:
                    return [_ready(tool)]
            case "message_delta":
                self.stop_reason = event.delta.stop_reason or self.stop_reason
                changed = self._take_input(event.usage)
                report = self._input_report() if changed else UsageReport()
                return [replace(report, output_tokens=event.usage.output_tokens)]
        return []

    def _input_report(self) -> UsageReport:
        """Input is the sum of the three counts Anthropic gives apart (uncached, cache written, cache read)."""
        parts = self.input_parts
        return UsageReport(input_tokens=sum(parts.values()), cache_read_tokens=parts.get("cache_read_input_tokens"),
                           cache_write_tokens=parts.get("cache_creation_input_tokens"))

    def _take_input(self, usage: Any) -> bool:
        changed = False
        for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
            value = getattr(usage, key, None)
            if value is not None:
                self.input_parts[key] = value
                changed = True
        return changed


def _ready(tool: _ToolBlock) -> ToolCallReady:
    raw = "".join(tool.fragments)
    value, error = parse_arguments(raw)
    if error is not None:
        return ToolCallReady(tool.id, tool.name, None, raw_arguments=raw, error=error)
    return ToolCallReady(tool.id, tool.name, value, raw_arguments=raw)


def _failure(exc: Exception, model: str, base_url: str | None, received: bool, started: bool) -> ProviderError:
    """The one place an anthropic or httpx2 exception becomes a ProviderError."""
    import anthropic
    import httpx2

    if isinstance(exc, anthropic.APIStatusError):
        detail = error_detail(exc.body, exc.message)
        if exc.status_code == 200:  # an `event: error` frame inside the stream
            kind = _STREAM_ERROR_KINDS.get(_error_type(exc.body))
            if received or kind is None:
                return broken_stream(NAME, detail, started=started)
            return ProviderError(NAME, kind, detail, status=200, started=started)
        if not received:
            return status_error(NAME, exc.status_code, detail, model=model, headers=exc.response.headers)
    if received:
        return broken_stream(NAME, describe(exc), started=started)
    if isinstance(exc, (anthropic.APITimeoutError, httpx2.TimeoutException)):
        return ProviderError(NAME, "timeout", f"no answer in time from {base_url or 'the API'}")
    if isinstance(exc, (anthropic.APIConnectionError, httpx2.TransportError)):
        cause = exc.__cause__ or exc
        return ProviderError(NAME, "connection", f"cannot reach {base_url or 'the API'}: {cause}")
    return ProviderError(NAME, "stream", describe(exc), started=started)


def _error_type(body: Any) -> str | None:
    error = body.get("error") if isinstance(body, dict) else None
    kind = error.get("type") if isinstance(error, dict) else None
    return kind if isinstance(kind, str) else None
