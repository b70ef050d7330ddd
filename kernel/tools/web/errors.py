"""Why a web call failed, as a field the caller can branch on (a ``ToolFailure``: the model reads it)."""

from __future__ import annotations

from typing import Literal

from ...errors import ToolFailure

WebFailureKind = Literal["url", "address", "redirects", "http", "timeout", "network", "config", "reply"]


class WebFailure(ToolFailure):
    """A fetch or search that could not be made or answered; ``kind`` says which way it failed."""

    def __init__(self, kind: WebFailureKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
