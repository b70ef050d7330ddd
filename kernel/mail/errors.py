"""The mail package's one error: what failed, as one line a person can act on.

``kind`` lets callers branch without reading the text: ``auth`` (user name
or password refused), ``connect`` (no server there, TLS failed, timed out),
``protocol`` (the server answered something unusable), ``not_found``.
A ``protocol`` error quotes the server's answer, so it is untrusted content
(``source``: the executor wraps it in markers and taints the agent).
"""

from __future__ import annotations

from typing import Literal

from ..core.errors import ToolFailure

MailErrorKind = Literal["auth", "connect", "protocol", "not_found", "config"]


class MailError(ToolFailure):
    def __init__(self, kind: MailErrorKind, message: str, *, source: str | None = None) -> None:
        if source is None and kind == "protocol":
            source = "the mail or calendar server's answer"
        super().__init__(message, source=source)
        self.kind = kind
