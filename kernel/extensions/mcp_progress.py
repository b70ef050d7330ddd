"""A server's progress notices for one tool call, cleaned before anyone shows them.

Every call is sent with a progress callback, so every ``tools/call`` carries a progress token (the
SDK uses the request id): a server that reports progress can, and its notices reach the tool card
as ``ToolProgress`` events (the hub publishes them). The numbers and words are the server's, so a
hostile or broken one is tamed here: not-a-number and infinities are dropped, a total below the
progress is forgotten, the message is one cleaned line of at most ``MESSAGE_MAX`` characters.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Awaitable, Callable

from ..core.json_safe import clean_text
from ..trust.untrusted import capped

if TYPE_CHECKING:
    from ..core.events import Event

MESSAGE_MAX = 200
Progress = Callable[[float, "float | None", str], None]


def progress_of(on: Progress | None) -> Callable[[float, float | None, str | None], Awaitable[None]]:
    """The SDK's progress callback for one call, handing ``on`` tamed values (nothing, when ``on`` is None)."""

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        if on is None or not _finite(progress):
            return
        whole = total if _finite(total) and total is not None and total >= progress else None
        on(float(progress), None if whole is None else float(whole), one_line(message))

    return heard


def progress_to(publish: "Callable[[Event], None] | None", agent_id: str, call_id: str) -> Progress | None:
    """A call's notices as ``ToolProgress`` events on the kernel's bus (None: nobody to tell)."""
    if publish is None or not agent_id:
        return None

    def tell(progress: float, total: float | None, message: str) -> None:
        from ..core.events import ToolProgress

        publish(ToolProgress(agent_id, call_id, progress, total, message))

    return tell


def one_line(message: object) -> str:
    text = clean_text(message) if isinstance(message, str) else ""
    return capped(" ".join(text.split()), MESSAGE_MAX)


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
