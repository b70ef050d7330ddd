"""Gemini through ``google-genai`` (async ``generate_content_stream``).

Tools are ``FunctionDeclaration(parameters_json_schema=...)`` with automatic
function calling disabled: the kernel runs tools, not the SDK. Function calls
arrive whole; their ``thoughtSignature`` travels in ``ToolCallReady.meta`` (as
base64 text, so it can be stored) and is echoed on the model turn, as Gemini
requires. Calls without an id get a local one that is never sent back.
Gemini says ``STOP`` for function calls too, so a turn that made calls ends
with ``tool_use``. Usage is the last ``usageMetadata`` (running totals),
reported once at the end. The ``genai.Client`` is held by the provider for
every stream's whole life (its ``__del__`` closes the HTTP client), is made
with ``vertexai=False`` so Vertex environment variables cannot redirect it,
and gets an explicit ``HttpOptions.timeout`` (the SDK has none). Raw
``httpx2`` errors escape this SDK mid-stream and are caught here. The SDK's
request conversion is the most expensive of the four, so the desktop runs
this adapter in a provider host process.
"""

from __future__ import annotations

import asyncio
import base64
import json
import uuid
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Mapping

from ..core.errors import ProviderError
from ..core.messages import ImagePart, Message, TextPart, ToolResultPart, ToolUse
from ..core.json_safe import object_problem, sanitised
from .adapter import SdkAdapter, pump
from .base import ProviderRequest, StreamEvent, TextChunk, ToolCallReady, UsageReport
from .image_wire import image_bytes, missing
from .failures import auth_message, broken_stream, describe, status_error, unsupported

NAME = "gemini"
LOCAL_ID_PREFIX = "gemini-local-"
SIGNATURE_KEY = "thought_signature"
_FINISH = {"MAX_TOKENS": "max_tokens", "FINISH_REASON_UNSPECIFIED": None}


class GeminiProvider(SdkAdapter):
    name = NAME
    sdk_modules = ("google.genai", "httpx2")

    def _make_client(self) -> Any:
        from google import genai
        from google.genai import types

        import httpx2

        # A transport of our own keeps the SDK on httpx2 for its async calls: with aiohttp installed (the chat
        # channels need it) google-genai would otherwise switch to aiohttp, whose errors and stream cuts the
        # failure map does not read (a refused connection surfaced as a raw ClientConnectorError, 2026-12-03).
        options = types.HttpOptions(base_url=self._base_url, timeout=int(self._timeout_s * 1000),
                                    async_client_args={"transport": httpx2.AsyncHTTPTransport()})
        return genai.Client(vertexai=False, api_key=self._api_key, http_options=options)

    async def _close_client(self, client: Any) -> None:
        await client.aio.aclose()
        client.close()

    def _events(self, request: ProviderRequest, client: Any) -> AsyncIterator[StreamEvent]:
        import httpx2
        from google.genai import errors

        reply = _Reply()
        contents, config = request_params(request)

        def fail(exc: BaseException, started: bool) -> Exception:
            return _failure(exc, request.model, self._base_url, reply.received, started)

        async def open_stream() -> _ReadAhead:
            return _ReadAhead(await client.aio.models.generate_content_stream(model=request.model,
                                                                              contents=contents, config=config))

        return pump(NAME, open_stream, reply, (errors.APIError, httpx2.TransportError, ValueError), fail,
                    tail=lambda: [reply.usage] if reply.usage is not None else [])  # running totals: the last


class _ReadAhead:
    """The SDK's stream, read by a task of its own and closed by cancelling that task.

    google-genai's stream is generators nested in generators: ``aclose`` on the outer one stops it
    at its ``yield`` and leaves the inner ones, and their HTTP response, open until the garbage
    collector finalizes them (about a second later, measured by the contract suite's kill test).
    Cancelling a task that waits on the next chunk unwinds every generator from the socket read
    up, so the server sees the disconnect at once."""

    def __init__(self, source: AsyncIterator[Any]) -> None:
        self._queue: asyncio.Queue[tuple[bool, Any]] = asyncio.Queue()
        self._task = asyncio.get_running_loop().create_task(self._read(source), name="gemini-stream")

    async def _read(self, source: AsyncIterator[Any]) -> None:
        try:
            async for item in source:
                self._queue.put_nowait((True, item))
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # noqa: BLE001 - handed to the reader, who maps or raises it
            self._queue.put_nowait((False, exc))
        else:
            self._queue.put_nowait((False, None))

    def __aiter__(self) -> "_ReadAhead":
        return self

    async def __anext__(self) -> Any:
        ok, value = await self._queue.get()
        if ok:
            return value
        if value is None:
            raise StopAsyncIteration
        raise value

    async def aclose(self) -> None:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


def request_params(request: ProviderRequest) -> tuple[list[Any], Any]:
    """The ``contents`` and ``config`` for ``generate_content_stream``."""
    from google.genai import types

    contents = [c for c in (_content(m, request.images) for m in request.messages) if c.parts]
    config = types.GenerateContentConfig(
        system_instruction=request.system or None,
        max_output_tokens=request.max_tokens,
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        tools=[types.Tool(function_declarations=[
            types.FunctionDeclaration(name=t.name, description=t.description,
                                      parameters_json_schema=dict(t.input_schema))
            for t in request.tools])] if request.tools else None,
    )
    return contents, config


def _content(msg: Message, images: Mapping[str, bytes]) -> Any:
    from google.genai import types

    parts: list[Any] = []
    for part in msg.parts:
        match part:
            case TextPart(text=text):
                if text:
                    parts.append(types.Part(text=text))
            case ToolUse() if msg.role == "assistant":
                signature = part.meta.get(SIGNATURE_KEY)
                parts.append(types.Part(
                    function_call=types.FunctionCall(id=_wire_id(part.id), name=part.name, args=dict(part.input)),
                    thought_signature=base64.b64decode(signature) if signature else None))
            case ToolResultPart() if msg.role == "user":
                content = "\n".join([part.content, *(missing(i) for i in part.images if i.sha256 not in images)])
                response = {"error": content} if part.is_error else {"output": content}
                parts.append(types.Part(function_response=types.FunctionResponse(
                    id=_wire_id(part.tool_use_id), name=part.name, response=response,
                    parts=_response_parts(part, images))))
            case ImagePart() if msg.role == "user":
                parts.append(_inline(part, images))
            case _:
                raise unsupported(NAME, f"a {type(part).__name__} in a {msg.role} message")
    return types.Content(role="model" if msg.role == "assistant" else "user", parts=parts)


def _inline(image: ImagePart, images: Mapping[str, bytes]) -> Any:
    """A picture as a user part (``inline_data``), or its placeholder when the request has no bytes for it."""
    from google.genai import types

    data = image_bytes(image, images)
    if data is None:
        return types.Part(text=missing(image))
    return types.Part(inline_data=types.Blob(mime_type=image.media_type, data=data))


def _response_parts(part: ToolResultPart, images: Mapping[str, bytes]) -> list[Any] | None:
    """A multimodal function response's media (Gemini 3); ``kernel.images.layout`` moves pictures out of
    the results for models that cannot take them there. A picture without bytes is left out here: its
    placeholder is in ``response`` already when the layout left it out."""
    from google.genai import types

    found = [(i, image_bytes(i, images)) for i in part.images]
    media = [types.FunctionResponsePart(inline_data=types.FunctionResponseBlob(mime_type=i.media_type, data=data))
             for i, data in found if data is not None]
    return media or None


def _wire_id(call_id: str) -> str | None:
    return None if call_id.startswith(LOCAL_ID_PREFIX) else call_id


@dataclass
class _Reply:
    """Assembles Gemini chunks into neutral events; usage is kept for the end."""

    received: bool = False
    finish: str | None = None
    had_calls: bool = False
    usage: UsageReport | None = None
    blocked: str | None = field(default=None)
    request_id: str | None = None  # the response id (Gemini sends no request-id header)
    model: str | None = None  # model_version: the model that answered

    @property
    def stop_reason(self) -> str | None:
        if self.blocked:
            return "blocked"
        if self.finish is None:
            return None
        if self.finish == "STOP":
            return "tool_use" if self.had_calls else "end_turn"
        return _FINISH.get(self.finish, self.finish.lower())

    def feed(self, chunk: Any) -> list[StreamEvent]:
        self.received = True
        out: list[StreamEvent] = []
        self.request_id = self.request_id or getattr(chunk, "response_id", None)
        self.model = self.model or getattr(chunk, "model_version", None)
        self._take_usage(chunk.usage_metadata)
        feedback = chunk.prompt_feedback
        if feedback is not None and feedback.block_reason is not None:
            self.blocked = str(_enum_value(feedback.block_reason))
        for candidate in (chunk.candidates or ())[:1]:
            content = candidate.content
            for part in (content.parts if content is not None else None) or ():
                if part.function_call is not None:
                    self.had_calls = True
                    out.append(_ready(part))
                elif part.text and not part.thought:
                    out.append(TextChunk(part.text))
            if candidate.finish_reason is not None:
                self.finish = _enum_value(candidate.finish_reason)
        return out

    def _take_usage(self, meta: Any) -> None:
        if meta is None:
            return
        prompt = (meta.prompt_token_count or 0) + (meta.tool_use_prompt_token_count or 0)
        output = (meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0)
        self.usage = UsageReport(input_tokens=prompt, output_tokens=output,
                                 cache_read_tokens=meta.cached_content_token_count)


def _ready(part: Any) -> ToolCallReady:
    call = part.function_call
    meta = {SIGNATURE_KEY: base64.b64encode(part.thought_signature).decode("ascii")} if part.thought_signature else {}
    call_id = call.id or f"{LOCAL_ID_PREFIX}{uuid.uuid4().hex[:12]}"
    args = dict(call.args or {})
    why = object_problem(args)
    if why is not None:  # Gemini sends arguments parsed: keep what arrived as safe JSON text
        raw = json.dumps(sanitised(args), ensure_ascii=False)
        return ToolCallReady(call_id, call.name or "", None, raw_arguments=raw, error=why, meta=meta)
    return ToolCallReady(call_id, call.name or "", args, meta=meta)


def _enum_value(value: Any) -> str:
    return str(getattr(value, "value", value))


def _failure(exc: BaseException, model: str, base_url: str | None, received: bool, started: bool) -> ProviderError:
    """The one place a google-genai or httpx2 exception becomes a ProviderError."""
    import httpx2
    from google.genai import errors

    if isinstance(exc, errors.APIError):
        detail = exc.message or str(exc)
        if received:
            return broken_stream(NAME, f"{exc.code} {exc.status}: {detail}", started=started)
        if exc.code == 400 and "API key" in detail:  # Gemini reports a bad key as 400 INVALID_ARGUMENT
            return ProviderError(NAME, "auth", auth_message(NAME, 400), status=400)
        headers = getattr(getattr(exc, "response", None), "headers", None)
        return status_error(NAME, int(exc.code or 500), detail, model=model, headers=headers)
    if received:
        return broken_stream(NAME, describe(exc), started=started)
    where = base_url or "the API"
    if isinstance(exc, httpx2.TimeoutException):
        return ProviderError(NAME, "timeout", f"no answer in time from {where}")
    if isinstance(exc, httpx2.TransportError):
        return ProviderError(NAME, "connection", f"cannot reach {where}: {describe(exc)}")
    return broken_stream(NAME, describe(exc), started=started)
