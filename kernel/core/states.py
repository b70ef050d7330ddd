"""The kernel's closed vocabularies: an agent's state and how a call or a request ended.

Both are ``StrEnum``s, so they travel as their plain words (in events, the
ledger's reasons, a future socket) and read as those words in f-strings,
while code asks the question it means (``state.busy``, ``state.final``)
instead of comparing strings and keeping its own lists of states.
"""

from __future__ import annotations

from enum import StrEnum


class AgentState(StrEnum):
    """Where an agent process is; the order is the order views list them in."""

    RUNNING = "running"
    WAITING = "waiting"    # a lease request is open: a person is needed
    PAUSED = "paused"      # budget reached, or paused by the user
    IDLE = "idle"
    INTERRUPTED = "interrupted"  # the kernel stopped while it worked; continues only when resumed
    KILLED = "killed"
    FAILED = "failed"

    @property
    def busy(self) -> bool:
        """Working on a message: it cannot take another until it stops."""
        return self in (AgentState.RUNNING, AgentState.WAITING)

    @property
    def can_pause(self) -> bool:
        """Pausing means something: it is working, or could be sent work."""
        return self in (AgentState.RUNNING, AgentState.WAITING, AgentState.IDLE)

    @property
    def resumable(self) -> bool:
        """Resume means something: paused, or interrupted by a kernel stop."""
        return self in (AgentState.PAUSED, AgentState.INTERRUPTED)

    @property
    def final(self) -> bool:
        """Killed: nothing changes it again."""
        return self is AgentState.KILLED


class Outcome(StrEnum):
    """How a tool call ended (``ToolCallFinished``: ok, error, denied, expired) or a lease request
    was resolved (``LeaseRequestResolved``: granted, denied, expired, cancelled)."""

    OK = "ok"
    GRANTED = "granted"
    ERROR = "error"
    DENIED = "denied"
    EXPIRED = "expired"
    CANCELLED = "cancelled"

    @property
    def failed(self) -> bool:
        return self not in (Outcome.OK, Outcome.GRANTED)
