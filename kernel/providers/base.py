"""The one provider protocol: ``stream(request) -> async events``.

An adapter turns a ``ProviderRequest`` (system prompt, provider-neutral
conversation, tool specs, model) into its SDK's streaming call and yields
``TextChunk``, ``ToolCallReady``, ``UsageReport`` and finally ``StreamEnd``.
A tool call is yielded only once it is complete. Failures raise
``kernel.core.errors.ProviderError`` with a ``kind`` and ``started`` set, never a
raw SDK or transport exception; a stream that ends without a stop reason is a
``ProviderError(kind="incomplete")``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Mapping, Protocol, Union

from ..core.messages import Message, ToolSpec


@dataclass(frozen=True)
class ProviderRequest:
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    model: str = ""
    max_tokens: int = 4096
    images: Mapping[str, bytes] = field(default_factory=dict)
    """The bytes of the conversation's images, by sha256 (``kernel.images`` fills it in); an image whose
    bytes are missing is sent as its placeholder."""
    # Prompt-cache hints (kernel/context/layout.py); an adapter uses what its API has: Anthropic breakpoints on
    # the system prompt (``cache_ttl``: "5m" or "1h") and on the last block of each message in ``cache_breaks``;
    # OpenAI's ``prompt_cache_key`` = ``cache_key``. Empty: no hints.
    cache_key: str = ""
    cache_ttl: str = ""
    cache_breaks: tuple[int, ...] = ()


@dataclass(frozen=True)
class TextChunk:
    text: str


@dataclass(frozen=True)
class ToolCallReady:
    """A complete tool call. ``input`` is None when the arguments were not valid JSON;
    then ``raw_arguments`` holds what arrived and ``error`` says what was wrong."""

    id: str
    name: str
    input: Mapping[str, Any] | None
    raw_arguments: str | None = None
    error: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class UsageReport:
    """Token totals of this request so far; a field is None when not reported yet.
    Later reports replace earlier ones field by field."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None   # of input_tokens, read from the provider's prompt cache
    cache_write_tokens: int | None = None  # of input_tokens, written to it (Anthropic, OpenAI Responses)


@dataclass(frozen=True)
class StreamEnd:
    """``stop_reason``: "end_turn", "tool_use", "max_tokens", or the provider's own word;
    ``request_id``: the provider's id of this request (its request-id header, else the reply's id);
    ``served_model``: the model the reply says answered (Anthropic ``message.model``, OpenAI
    ``response.model``, Gemini ``model_version``), which may differ from the one asked for."""

    stop_reason: str
    request_id: str | None = None
    served_model: str | None = None


StreamEvent = Union[TextChunk, ToolCallReady, UsageReport, StreamEnd]


class Provider(Protocol):
    """A model provider. ``name`` is the CLI's provider name (anthropic, openai, …)."""

    name: str

    def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]: ...

    async def aclose(self) -> None: ...
