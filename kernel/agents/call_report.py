"""How one tool call ended: the value the tool runner and its steps (replay, hooks) hand back.

Its own module so the runner (``tool_runner``) and the steps it calls
(``replay_step``) both import it, and neither reaches into the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.messages import ImagePart
from ..core.states import Outcome


@dataclass(frozen=True)
class CallReport:
    """How one call ended, as the finished event and the model's result tell it."""

    outcome: Outcome
    content: str
    seq: int | None = None        # the result or error entry
    call_seq: int | None = None   # the tool entry, once the call was recorded
    duration_ms: float = 0.0      # how long the tool ran (0 when it never ran)
    changes: tuple[int, ...] = ()  # the fs.write entries the call caused
    source: str | None = None     # where untrusted content came from (until it is wrapped in markers)
    images: tuple[ImagePart, ...] = ()  # pictures the result shows the model

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.OK
