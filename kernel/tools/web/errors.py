"""Why a web call failed, as a field the caller can branch on (a ``ToolFailure``: the model reads it)."""

from __future__ import annotations

from typing import Literal

from ...core.errors import ToolFailure

WebFailureKind = Literal["url", "address", "redirects", "http", "timeout", "network", "config", "reply", "budget"]


class WebFailure(ToolFailure):
    """A fetch or search that could not be made or answered; ``kind`` says which way it failed.
    ``source`` is set when the message quotes what a server sent (its error page, its reason phrase)."""

    def __init__(self, kind: WebFailureKind, message: str, *, source: str | None = None) -> None:
        super().__init__(message, source=source)
        self.kind = kind
