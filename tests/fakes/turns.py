"""Provider-neutral script for the fake LLM server.

A test scripts a queue of `Turn`s; each incoming model request consumes one
turn, which is then encoded in whatever wire protocol the request used.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Literal, Union

__all__ = [
    "Text",
    "ToolCall",
    "Usage",
    "HttpError",
    "Cut",
    "ErrorEvent",
    "Fault",
    "Turn",
    "split_text",
]

STOPS = ("auto", "end_turn", "tool_use", "max_tokens", None)


@dataclass(frozen=True)
class Text:
    """Assistant text, streamed as `chunks` deltas (fewer if the text is shorter)."""

    text: str
    chunks: int = 3


@dataclass(frozen=True)
class ToolCall:
    """A tool call.

    `args` is serialized to JSON and split into `fragments` pieces for the
    protocols that stream arguments (Anthropic input_json_delta, OpenAI
    arguments deltas). `raw_arguments` sends that literal string instead
    (possibly malformed JSON). Gemini has no fragments: it gets `args` whole,
    or, with `raw_arguments`, the parsed object if the string is a JSON object
    and `{"__raw__": raw_arguments}` otherwise.

    `id=None` auto-generates a per-protocol id (`toolu_…`, `call_…`, Gemini
    `fc_…`).
    """

    name: str
    args: dict | None = None
    id: str | None = None
    raw_arguments: str | None = None
    fragments: int = 3
    thought_signature: str | None = None  # Gemini only: sent as the part's thoughtSignature (base64)

    def arguments_json(self) -> str:
        if self.raw_arguments is not None:
            return self.raw_arguments
        return json.dumps(self.args or {}, separators=(",", ":"))

    def gemini_args(self) -> dict:
        if self.raw_arguments is None:
            return dict(self.args or {})
        try:
            parsed = json.loads(self.raw_arguments)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
        return {"__raw__": self.raw_arguments}


@dataclass(frozen=True)
class Usage:
    """Tokens of a reply. ``input`` counts every input token, the cached ones included: ``cache_read``
    of them came from the provider's prompt cache and ``cache_write`` were written to it."""

    input: int
    output: int
    cache_read: int = 0
    cache_write: int = 0


@dataclass(frozen=True)
class HttpError:
    """Answer the request with HTTP `status` and the provider's own error body.

    `kind` overrides the error type string (Anthropic `error.type`, OpenAI
    `error.type`, Gemini `error.status`); by default it is derived from the
    status. `retry_after` adds `retry-after` (seconds) and `retry-after-ms`.
    """

    status: int
    retry_after: float | None = None
    message: str = "fake provider error"
    kind: str | None = None


@dataclass(frozen=True)
class Cut:
    """Stop the stream after `after_events` SSE events.

    abort: close the socket mid-body (the chunked body is never terminated);
    reset: TCP RST (SO_LINGER 0, then close);
    clean: terminate the HTTP body normally, without the remaining events.
    """

    after_events: int
    mode: Literal["abort", "reset", "clean"] = "abort"

    def __post_init__(self) -> None:
        if self.mode not in ("abort", "reset", "clean"):
            raise ValueError(f"Cut.mode must be abort/reset/clean, not {self.mode!r}")


@dataclass(frozen=True)
class ErrorEvent:
    """After `after_events` events, send the provider's mid-stream error frame, then end the body."""

    after_events: int
    message: str = "overloaded"


Fault = Union[HttpError, Cut, ErrorEvent]


@dataclass(frozen=True)
class Turn:
    parts: tuple[Union[Text, ToolCall], ...] = ()
    usage: Usage = field(default_factory=lambda: Usage(10, 5))
    stop: str | None = "auto"
    fault: Fault | None = None
    delay: float = 0.0
    request_id: str | None = None  # the provider's id of the request (None: the server makes one up)
    served_model: str | None = None  # the model the reply names (None: the model the request asked for)

    def __post_init__(self) -> None:
        if self.stop not in STOPS:
            raise ValueError(f"Turn.stop must be one of {STOPS}, not {self.stop!r}")
        if not isinstance(self.parts, tuple):
            object.__setattr__(self, "parts", tuple(self.parts))
        for p in self.parts:
            if not isinstance(p, (Text, ToolCall)):
                raise TypeError(f"Turn.parts items must be Text or ToolCall, not {type(p).__name__}")

    @property
    def resolved_stop(self) -> str | None:
        """The neutral stop reason: end_turn / tool_use / max_tokens / None."""
        if self.stop == "auto":
            return "tool_use" if any(isinstance(p, ToolCall) for p in self.parts) else "end_turn"
        return self.stop


def split_text(s: str, n: int) -> list[str]:
    """Split `s` into at most `n` (>=1) non-empty pieces that concatenate back to `s`."""
    n = max(1, n)
    if not s:
        return [""]
    n = min(n, len(s))
    size, extra = divmod(len(s), n)
    out, pos = [], 0
    for i in range(n):
        step = size + (1 if i < extra else 0)
        out.append(s[pos : pos + step])
        pos += step
    return out


_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    return f"{prefix}{next(_ids):06d}fake"
