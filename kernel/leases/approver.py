"""Permission decisions are values: an ``Approver`` returns ``Grant`` or ``Denial``.

The kernel never opens a dialog. When a tool needs a lease the agent has
not got, the kernel builds a ``LeaseRequest`` and awaits
``approver.decide(request)``, racing it against the request's expiry on the
kernel clock. The desktop's approver shows a dialog; the terminal's asks on
the TTY; a headless run grants only what ``--grant`` allowed up front.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Union

if TYPE_CHECKING:  # an annotation only: ``agentdesk ask`` attached decodes requests without the tools
    from ..tools.descriptor import CallPreview


@dataclass(frozen=True)
class LeaseRequest:
    id: int
    agent_id: str
    agent_name: str
    tool: str
    scope: str                          # exactly what is asked for; the dialog cannot widen it
    input: Mapping[str, Any]
    durations: tuple[float, ...]        # offered, in seconds, in order
    default_duration: float
    expires_at: float                   # unix time; unanswered by then → recorded as expired
    preview: CallPreview | None = None
    notes: tuple[str, ...] = field(default=())  # warnings to show (e.g. "runs without a sandbox")
    call_id: str = ""                   # the model's id of the tool call that needs the lease
    # A one-off confirmation (``once``): no lease is granted, and none could have covered the call.
    once: bool = False
    reason: str = ""                    # why it asks every time (the agent is tainted, a confirm policy)
    highlights: tuple[str, ...] = ()    # argument pieces that appear in untrusted content the agent read
    flags: tuple[str, ...] = ()         # injection patterns seen in the arguments, in words
    detail: tuple[str, ...] = ()        # the whole act in words (automation_create: its definition)


@dataclass(frozen=True)
class Grant:
    duration_s: float


@dataclass(frozen=True)
class Denial:
    reason: str = "the user did not grant it"
    by: str = "user"  # who refused: the user, or a policy such as an automation's (``automation:<id>``)


Decision = Union[Grant, Denial]


class Approver(Protocol):
    async def decide(self, request: LeaseRequest) -> Decision: ...


class DenyAll:
    """Headless default: every request is refused by the kernel, nobody having been asked (scopes granted up
    front never get here)."""

    async def decide(self, request: LeaseRequest) -> Decision:
        return Denial("no one is attached to grant it (run with --grant, or from a terminal)", by="kernel")
