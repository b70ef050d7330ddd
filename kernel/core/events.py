"""The kernel's event vocabulary: one frozen dataclass per event, and a bus.

Everything a window shows comes from these events; views never poll kernel
internals. Subscribers are plain callables run synchronously, in order, on
the publishing thread (the event loop's); one that raises is reported to the
bus's error hook and does not stop the others.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Union

from .states import AgentState, Outcome
from .messages import ImagePart

if TYPE_CHECKING:  # annotations only: a client imports these with the first value it meets (the codec)
    from ledger import Entry

    from ..leases.approver import LeaseRequest
    from ..extensions.mcp_status import McpReload
    from ..extensions.mcp_elicit import ElicitQuestion
    from ..leases.lease import Lease

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AgentInfo:
    """A snapshot of one agent process, as the process table shows it."""

    id: str
    name: str
    state: AgentState
    reason: str                # why it is in that state, in words ("" when obvious)
    provider: str
    model: str
    budget: int
    input_tokens: int
    output_tokens: int
    started_at: float
    workspace: str
    tainted: str = ""          # why it is tainted ("read untrusted content from …"), "" when it is not
    unattended: bool = False   # an automation run: nobody is there to confirm anything
    cost: float | None = None  # money spent so far (Settings' price table); None: the model has no price
    degraded: str = ""         # answering on a fallback: "anthropic overloaded — answering with openai:gpt-5"
    # the context engine (issue 24): input tokens read from the provider's cache, the last request's input
    # and the model's window (0: not known yet)
    cached_tokens: int = 0
    context_tokens: int = 0
    context_window: int = 0

    @property
    def cache_share(self) -> float | None:
        """The share of input tokens read from the provider's cache (None before any input)."""
        return self.cached_tokens / self.input_tokens if self.input_tokens else None

    @property
    def context_share(self) -> float | None:
        """How full the model's window was at the last request (None before one)."""
        return self.context_tokens / self.context_window if self.context_tokens and self.context_window else None

    @property
    def used(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class AgentSpawned:
    agent: AgentInfo


@dataclass(frozen=True)
class AgentStateChanged:
    agent: AgentInfo           # state and reason are in here
    previous: AgentState


@dataclass(frozen=True)
class AgentKilled:
    agent: AgentInfo
    by: str


@dataclass(frozen=True)
class TurnStarted:
    agent_id: str
    turn: int                  # counts model requests of this agent, from 1


@dataclass(frozen=True)
class TurnFinished:
    agent_id: str
    turn: int
    stop_reason: str


@dataclass(frozen=True)
class UserMessage:
    agent_id: str
    text: str


@dataclass(frozen=True)
class TextDelta:
    """Streamed reply text. ``offset``: how many characters the agent streamed before this chunk (since the
    kernel started), so a view that opened mid-reply (``KernelFacade.reply_so_far``) skips what it already has."""

    agent_id: str
    text: str
    offset: int = 0


@dataclass(frozen=True)
class ToolCallStarted:
    agent_id: str
    call_id: str               # the model's id for the call
    tool: str
    scope: str
    input: Mapping[str, Any]
    seq: int | None            # the ledger's tool entry (None when refused before recording)


@dataclass(frozen=True)
class ToolCallFinished:
    agent_id: str
    call_id: str
    tool: str
    outcome: Outcome           # ok · error · denied · expired
    content: str               # what the model was told
    duration_ms: float
    seq: int | None            # the result/error entry
    changes: tuple[int, ...] = ()   # fs.write entries the call caused
    images: tuple[ImagePart, ...] = ()  # pictures the result showed the model

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.OK


@dataclass(frozen=True)
class LeaseRequested:
    request: LeaseRequest


@dataclass(frozen=True)
class LeaseRequestResolved:
    request_id: int
    agent_id: str
    outcome: Outcome           # granted · denied · expired · cancelled
    lease: Lease | None = None


@dataclass(frozen=True)
class AgentTainted:
    """The agent read untrusted content (first time, or again): ``agent.tainted`` says why."""

    agent: AgentInfo


@dataclass(frozen=True)
class AutomationsChanged:
    """An automation was added, changed or ran, or the Inbox changed: views reload."""

    automation: str


@dataclass(frozen=True)
class UsageUpdated:
    agent: AgentInfo


@dataclass(frozen=True)
class LeaseGranted:
    lease: Lease


@dataclass(frozen=True)
class LeaseRevoked:
    lease: Lease
    reason: str


@dataclass(frozen=True)
class LeaseExpired:
    lease: Lease


@dataclass(frozen=True)
class LedgerAppended:
    entry: Entry


@dataclass(frozen=True)
class AgentArchived:
    """An agent left the process table for History (kept in the ledger)."""

    agent: AgentInfo


@dataclass(frozen=True)
class McpChanged:
    """The kernel read mcp.json again: asked to (Settings, ``agentdesk mcp``), or ``edited`` by hand (it
    noticed); ``reload`` says what changed and why anything could not be used."""

    reload: McpReload
    edited: bool = False


@dataclass(frozen=True)
class StartChecked:
    """A check at start answered (``what``: "ledger" or "automation records"): ask the desk's ``integrity()``
    again (it said ``Checking`` until now; kernel.core.checking)."""

    what: str


@dataclass(frozen=True)
class McpQuestionAsked:
    """An MCP server asks the user something (elicitation) during an agent's call; it waits for
    ``kernel.extensions.answer_question`` (a dialog in the desktop), never for the model."""

    question: ElicitQuestion


@dataclass(frozen=True)
class McpQuestionClosed:
    """The question is no longer open: answered (``action``), or the call ended first (``cancel``)."""

    question_id: int
    action: str


@dataclass(frozen=True)
class ToolProgress:
    """A running tool call said how far it got (an MCP server's progress notice): the tool card shows it."""

    agent_id: str
    call_id: str
    progress: float
    total: float | None = None
    message: str = ""


Event = Union[
    AgentSpawned, AgentStateChanged, AgentKilled, TurnStarted, TurnFinished, UserMessage, TextDelta,
    ToolCallStarted, ToolCallFinished, LeaseRequested, LeaseRequestResolved, UsageUpdated,
    LeaseGranted, LeaseRevoked, LeaseExpired, LedgerAppended, AgentTainted, AgentArchived,
    AutomationsChanged, McpChanged, StartChecked,
    McpQuestionAsked, McpQuestionClosed, ToolProgress,  # MCP as a whole client (issue 29)
]
Subscriber = Callable[[Event], None]


@dataclass
class EventBus:
    on_error: Callable[[Subscriber, Event, BaseException], None] | None = None
    _subscribers: list[Subscriber] = field(default_factory=list)

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        """Add a subscriber; returns the function that removes it."""
        self._subscribers.append(fn)
        return lambda: self._subscribers.remove(fn) if fn in self._subscribers else None

    def publish(self, event: Event) -> None:
        for fn in tuple(self._subscribers):
            try:
                fn(event)
            except Exception as exc:  # a broken view must not break the kernel
                if self.on_error is not None:
                    self.on_error(fn, event, exc)
                else:
                    log.exception("event subscriber failed on %s", type(event).__name__)
