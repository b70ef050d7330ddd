"""Turning HTTP failures into ``ProviderError``s, the same way for every adapter.

Each adapter knows its SDK's exception classes and reduces them to a status,
headers and a message; everything after that (which kind a status is, how
long the server asked us to wait, the messages that tell a user what to fix)
is decided here once, so ``anthropic`` and ``gemini`` cannot drift apart.
A failure after the first event of a reply arrived is always ``stream``: the
reply broke, and asking again would duplicate what was already shown.
"""

from __future__ import annotations

import re

import email.utils
import json
import time
from typing import Any, Mapping

from ..core.errors import ProviderError, ProviderErrorKind
from ..core.json_safe import MAX_DEPTH, object_problem
from .catalog import CATALOG


def kind_for_status(status: int) -> ProviderErrorKind:
    """The error kind an HTTP status means, the same for every provider."""
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not_found"
    if status == 408:
        return "timeout"
    if status == 429:
        return "rate_limit"
    if status in (503, 529):
        return "overloaded"
    if status >= 500:
        return "server"
    return "bad_request"


def parse_retry_after(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """Seconds to wait, from ``retry-after-ms``, else ``retry-after`` as seconds or an HTTP date."""
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return None
    when = email.utils.mktime_tz(parsed)
    return max(0.0, when - (time.time() if now is None else now))


def status_error(provider: str, status: int, detail: str, *, model: str,
                 headers: Mapping[str, str] | None = None, started: bool = False) -> ProviderError:
    """A ProviderError for an HTTP error status, with a message that says what to fix."""
    kind = kind_for_status(status)
    if status in (400, 413) and too_long(detail):
        kind = "too_long"
    if kind == "auth":
        message = auth_message(provider, status)
    elif kind == "not_found":
        message = f"unknown model {model!r} — check the model name in Settings or --model ({detail})"
    else:
        message = f"HTTP {status}: {detail}"
    return ProviderError(provider, kind, message, status=status,
                         retry_after=parse_retry_after(headers), started=started)


# How each API says a request is over the model's window (Anthropic "prompt is too long: 210000 tokens > 200000
# maximum", OpenAI code context_length_exceeded / "maximum context length", Gemini "input token count (N) exceeds
# the maximum number of tokens allowed", llama.cpp "exceeds the available context size"); read only here, at the edge.
_TOO_LONG = re.compile(r"prompt is too long|context[_ ]length[_ ]exceeded|maximum context length|"
                       r"exceeds the maximum number of tokens|exceeds the available context size|context window",
                       re.IGNORECASE)


def too_long(detail: str) -> bool:
    """Whether an error's text says the request is over the model's context window."""
    return bool(_TOO_LONG.search(detail[:2000]))


def auth_message(provider: str, status: int) -> str:
    info = CATALOG.get(provider)
    variable = info.key_variable if info is not None else "the API key variable"
    return f"{provider} rejected the API key ({status}): set {variable} or the key in Settings"


def broken_stream(provider: str, detail: str, *, started: bool) -> ProviderError:
    """The reply started and then broke (cut, reset, error event, timeout mid-stream)."""
    return ProviderError(provider, "stream", f"the reply broke off: {detail}", started=started)


def incomplete(provider: str) -> ProviderError:
    return ProviderError(provider, "incomplete", "the reply ended without a stop reason", started=True)


def unsupported(provider: str, what: str) -> ProviderError:
    return ProviderError(provider, "unsupported", f"cannot send {what} to {provider}")


def describe(exc: BaseException) -> str:
    """A short description of a transport exception (httpx2 messages are often empty)."""
    cause = exc.__cause__ if exc.__cause__ is not None and not str(exc).strip(" .") else None
    text = str(cause or exc).strip()
    name = type(cause or exc).__name__
    return f"{name}: {text}" if text else f"{name} (the connection closed)"


def error_detail(body: Any, fallback: str) -> str:
    """The human message inside a provider's JSON error body, else ``fallback``."""
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(message := inner.get("message"), str):
            return message
        if isinstance(message := body.get("message"), str):
            return message
    if isinstance(body, str) and body:
        return body
    return fallback


def parse_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """Tool-call arguments as a dict, or (None, what was wrong) — never an exception.

    A dict comes back only when every encoder downstream can take it (``kernel.trust.untrusted``):
    not nested too deeply, no lone surrogates, no NaN or Infinity."""
    if raw.strip() == "":
        return {}, None
    try:
        value = json.loads(raw)
    except RecursionError:
        return None, f"tool arguments are nested more than {MAX_DEPTH} levels deep"
    except ValueError as exc:
        return None, f"tool arguments are not valid JSON: {exc}"
    why = object_problem(value)
    if why is not None:
        return None, why
    return value, None
