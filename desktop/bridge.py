"""Kernel events as Qt signals, routed so a busy agent costs only its own window.

The kernel's bus calls subscribers synchronously on the event loop's thread;
under qasync that is the Qt thread, so the bridge re-emits each event
directly (no queued hop, no copy). Two routes:

- ``event`` carries every event except streamed text (``TextDelta``): the
  main window, the lease dialogs and the status line listen here.
- ``channel(agent_id).event`` carries every event about one agent,
  text deltas included, in order: an Ask window listens only to its agent,
  so twenty agents streaming a hundred deltas a second cost each window
  a hundred calls a second, not two thousand.

``tick`` fires once a second so countdowns ("4 min left") move without
anyone polling the kernel; ``frames`` is the one ``FrameClock`` the views
batch their redraws on.
"""

from __future__ import annotations


from PySide6.QtCore import QObject, QTimer, Signal

from kernel.api import (
    AgentKilled, AgentSpawned, AgentStateChanged, KernelFacade, LeaseRequested, LeaseRequestResolved, TextDelta,
    ToolCallFinished, ToolCallStarted, TurnFinished, TurnStarted, UsageUpdated, UserMessage,
)
from kernel.api import AgentTainted
from kernel.api import Compaction, LedgerAppended
from kernel.api import ElicitQuestion, McpQuestionAsked, ToolProgress

from .frame_clock import FrameClock


def agent_of(event: object) -> str | None:
    """The id of the agent an event is about, or None for events about no single agent."""
    match event:
        case TextDelta(agent_id=a) | TurnStarted(agent_id=a) | TurnFinished(agent_id=a) | UserMessage(agent_id=a):
            return a
        case ToolCallStarted(agent_id=a) | ToolCallFinished(agent_id=a) | LeaseRequestResolved(agent_id=a):
            return a
        case AgentSpawned(agent=info) | AgentStateChanged(agent=info) | AgentKilled(agent=info) | \
                UsageUpdated(agent=info) | AgentTainted(agent=info):
            return info.id
        case LeaseRequested(request=request):
            return request.agent_id
        case ToolProgress(agent_id=a) | McpQuestionAsked(question=ElicitQuestion(agent_id=a)):  # MCP (issue 29)
            return a
        case LedgerAppended(entry=Compaction(actor=a)):  # the Ask window draws its divider (issue 24)
            return a
        case LedgerAppended(entry=entry) if entry.kind == "request":  # who answered (model routes)
            return entry.actor
    return None


class AgentChannel(QObject):
    """One agent's events; receivers are disconnected by Qt when they are destroyed."""

    event = Signal(object)  # type: ignore[assignment]  # a signal named like QObject.event, kept for its users


class EventBridge(QObject):
    event = Signal(object)  # type: ignore[assignment]  # a signal named like QObject.event, kept for its users
    tick = Signal()

    def __init__(self, kernel: KernelFacade, parent: QObject | None = None, tick_ms: int = 1000) -> None:
        super().__init__(parent)
        self._channels: dict[str, AgentChannel] = {}
        self.frames = FrameClock(self)
        self._unsubscribe = kernel.subscribe(self._on_event)
        self._timer = QTimer(self)
        self._timer.setInterval(tick_ms)
        self._timer.timeout.connect(self.tick)
        self._timer.start()

    def channel(self, agent_id: str) -> AgentChannel:
        """The signal source for one agent's events (created on first use)."""
        channel = self._channels.get(agent_id)
        if channel is None:
            channel = self._channels[agent_id] = AgentChannel(self)
        return channel

    def _on_event(self, event: object) -> None:
        agent_id = agent_of(event)
        if agent_id is not None:
            channel = self._channels.get(agent_id)
            if channel is not None:
                channel.event.emit(event)
        if not isinstance(event, TextDelta):
            self.event.emit(event)

    def close(self) -> None:
        """Stop listening (the kernel keeps running)."""
        self._timer.stop()
        self._unsubscribe()
