"""The kernel's one error tree.

Callers branch on classes and fields (``ProviderError.kind``), never on
message text. Control signals (a lease is needed, a task was cancelled) are
not errors and do not live here; neither is a refused tool call, which is a
result the model sees.
"""

from __future__ import annotations

from typing import Literal


class KernelError(Exception):
    """Base of every error the kernel raises."""


class ConfigError(KernelError):
    """Bad settings or configuration: a settings.json or keys.json value, unknown provider, missing
    API key, bad duration. ``message`` is the one sentence a person reads.

    ``variable`` names the environment variable or setting to fix, when one applies. For a value in a
    file, ``file`` is the file's name (``settings.json``), ``field`` the setting (dotted for an entry
    of a mapping, ``models.gemini``; None when the whole file is unusable) and ``allowed`` what the
    field accepts, in words.
    """

    def __init__(self, message: str, variable: str | None = None, *, file: str | None = None,
                 field: str | None = None, allowed: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.variable = variable
        self.file = file
        self.field = field
        self.allowed = allowed

    @classmethod
    def invalid(cls, file: str, field: str | None, allowed: str, found: str) -> "ConfigError":
        """``<file>: <field> must be <allowed> (found <found>)``: one value, or the whole file, is wrong."""
        where = f"{file}: {field}" if field else file
        return cls(f"{where} must be {allowed} (found {found})", field or file, file=file, field=field,
                   allowed=allowed)


class UnknownAgent(KernelError):
    def __init__(self, agent_id: str) -> None:
        super().__init__(f"no agent {agent_id!r}")
        self.agent_id = agent_id


class InvalidState(KernelError):
    """An operation the agent's current state does not allow (sending to a killed agent)."""

    def __init__(self, agent_id: str, state: str, action: str) -> None:
        super().__init__(f"agent {agent_id} is {state}: cannot {action}")
        self.agent_id = agent_id
        self.state = state
        self.action = action


ProviderErrorKind = Literal[
    "auth",         # 401/403: bad or missing key
    "not_found",    # 404: unknown model or endpoint
    "bad_request",  # 400/422: the request itself is wrong
    "rate_limit",   # 429
    "overloaded",   # 529, 503
    "server",       # other 5xx
    "connection",   # could not connect / connection dropped before the reply started
    "timeout",      # no answer in time
    "stream",       # the reply broke after it started (cut, reset, error event)
    "incomplete",   # the reply ended without a stop reason
    "unsupported",  # the conversation holds something this provider cannot represent
    "too_long",     # 400/413: the request is longer than the model's context window (the kernel compacts, retries once)
]

RETRYABLE_KINDS = frozenset({"rate_limit", "overloaded", "server", "connection", "timeout"})


class ProviderError(KernelError):
    """A provider failed. ``started`` is True when part of the reply had already arrived; ``request_id``
    is the provider's id of the failed request when its reply carried one (what its support asks for);
    ``served_model`` the model a reply that broke off named; ``attempts`` how many times it was sent
    (the retry policy sets it when it gives up)."""

    def __init__(self, provider: str, kind: ProviderErrorKind, message: str, *, status: int | None = None,
                 retry_after: float | None = None, started: bool = False, request_id: str | None = None) -> None:
        super().__init__(f"{provider}: {message}")
        self.provider = provider
        self.kind = kind
        self.detail = message
        self.status = status
        self.retry_after = retry_after
        self.started = started
        self.request_id = request_id
        self.served_model: str | None = None
        self.attempts = 1

    @property
    def retryable(self) -> bool:
        """Worth asking again: a transient failure before any of the reply arrived."""
        return not self.started and self.kind in RETRYABLE_KINDS


RegistryErrorReason = Literal["name", "duplicate", "schema", "definition", "unknown"]


class RegistryError(KernelError):
    """A tool cannot be registered or looked up: a bad name or scope, a duplicate, a broken
    schema, or (``unknown``) a name asked of a registry that does not hold it."""

    def __init__(self, tool: str, reason: RegistryErrorReason, message: str) -> None:
        super().__init__(f"tool {tool!r}: {message}")
        self.tool = tool
        self.reason = reason
        self.detail = message


class ToolFailure(KernelError):
    """Raised by a tool to end its call with an error result the model sees.

    ``message`` is written for the model (and the user): what went wrong and,
    where it helps, what to do instead. ``source`` is set when the message
    quotes content from outside (an HTTP error page, a server's or an MCP
    tool's error text): where it came from, e.g. ``web_fetch https://…``. The
    executor then treats the error like an untrusted result (markers, an
    ``untrusted`` entry, taint); a local refusal leaves it None.
    """

    def __init__(self, message: str, *, source: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.source = source


ImageRefusedReason = Literal["corrupt", "animated", "huge", "unsupported"]


class ImageRefused(KernelError):
    """A picture that cannot be shown to a model: ``reason`` says why (a file Pillow cannot read, an
    animation, too many pixels or bytes), ``message`` says it in words for the model and the user."""

    def __init__(self, reason: ImageRefusedReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
