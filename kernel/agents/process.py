"""One agent process: identity, state, budget, conversation, and its task.

State changes go through ``set_state`` so every change is published. The
conversation is an immutable tuple replaced on each append.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from dataclasses import dataclass, field
from typing import Callable

from ..accounting.budget import Budget
from ..core.events import AgentInfo, AgentStateChanged, AgentTainted, UsageUpdated
from ..core.messages import Message, appended
from ..accounting.budget import Usage
from ..accounting.mixed import Model, mixed_cost
from ..core.states import AgentState
from ..workspace.root import Workspace
from ..trust.markers import new_nonce
from ..trust.taint import Taint
from ..routes.route import Route, Widened
from ..routes.target import Attempt, Target
from ..context.layout import ContextState
from ..context.window import window_tokens
from .services import Services

UNTRUSTED_KEPT_CHARS = 4_000_000  # untrusted text kept to highlight what a risky call copied from it


@dataclass
class AgentProcess:
    id: str
    name: str
    provider: str
    model: str
    workspace: str
    started_at: float
    services: Services
    budget: Budget
    state: AgentState = AgentState.IDLE
    reason: str = ""
    messages: tuple[Message, ...] | None = ()  # None: still on the record, read on first use
    load_messages: Callable[[], tuple[Message, ...]] | None = None
    turns: int = 0
    task: asyncio.Task[None] | None = None
    pause_requested: bool = False
    request_reason: str = "user-turn"  # why the next provider request is made (agents.records)
    failure_kind: str = ""  # the ProviderError kind that failed it (automations tell "offline" from it)
    streaming: list[str] = field(default_factory=list)  # the reply streaming now, not in the conversation yet
    streamed: int = 0  # characters of reply text streamed since the kernel started (``TextDelta.offset``)
    request_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # trust (kernel/trust): marker nonce, taint (only grows), automation runs, what untrusted text it read
    unattended: bool = False
    nonce: str = field(default_factory=new_nonce)
    taint: Taint | None = None
    untrusted_read: list[str] = field(default_factory=list)
    # model routes (kernel/routes): the request in flight's candidate, and the fallback kept for the turn
    route: Route | None = None  # primary + fallbacks; None: its provider and model alone
    attempt: Attempt | None = None
    sticky: Target | None = None
    degraded: str = ""  # why it answers on a fallback, in words ("" on its primary)
    tried: Target | None = None  # the candidate of the last request sent (which model a too-long error came from)
    widened: Widened | None = None  # this turn outgrew a window even after compaction (agents/widen_step)
    priced: dict[Model, Usage] = field(default_factory=dict)  # finished requests' tokens per model that served them

    @property
    def target(self) -> Target:
        """Where the request being made goes: the route's candidate in flight, else the agent's model."""
        return self.attempt.target if self.attempt is not None else Target(self.provider, self.model)
    # the context engine (kernel/context): the fixed prefix, the state block last sent, the cache hints
    context: ContextState = field(default_factory=ContextState)

    @property
    def conversation(self) -> tuple[Message, ...]:
        """What the model sees; an agent rebuilt at start reads it from the record the first time."""
        if self.messages is None:
            self.messages = self.load_messages() if self.load_messages is not None else ()
        return self.messages

    @conversation.setter
    def conversation(self, value: tuple[Message, ...]) -> None:
        self.messages = value

    @property
    def root(self) -> Workspace:
        return Workspace(Path(self.workspace))

    def info(self) -> AgentInfo:
        used = self.budget.used
        cost = mixed_cost(self.services.settings.prices, (self.provider, self.model), used, self.priced)
        return AgentInfo(self.id, self.name, self.state, self.reason, self.provider, self.model,
                         self.budget.limit, used.input_tokens, used.output_tokens, self.started_at, self.workspace,
                         tainted=self.taint.reason if self.taint is not None else "", unattended=self.unattended,
                         cost=cost, degraded=self.degraded, cached_tokens=used.cached_tokens,
                         context_tokens=self.context.reported_input or self.context.restored_input,
                         context_window=window_tokens(self.provider, self.model, self.services.settings))

    def taint_with(self, source: str, seq: int, ts: float, content: str) -> None:
        """It read untrusted ``content`` from ``source`` (recorded as entry ``seq``): tainted from now on."""
        self.taint = self.taint.seen() if self.taint is not None else Taint(source, ts, seq)
        self.untrusted_read.append(content)
        total = sum(len(t) for t in self.untrusted_read)
        while len(self.untrusted_read) > 1 and total > UNTRUSTED_KEPT_CHARS:  # the newest is what it acts on
            total -= len(self.untrusted_read.pop(0))
        self.services.bus.publish(AgentTainted(self.info()))

    @property
    def killed(self) -> bool:
        return self.state.final

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()

    def set_state(self, state: AgentState, reason: str = "") -> None:
        if self.state.final:
            return
        if (state, reason) == (self.state, self.reason):
            return
        previous, self.state, self.reason = self.state, state, reason
        self.services.bus.publish(AgentStateChanged(self.info(), previous))

    def append(self, message: Message) -> None:
        """Add a message, made encodable for every provider; a user message right after another
        user message is merged into it."""
        self.conversation = appended(self.conversation, message)

    def report_usage(self, input_tokens: int | None, output_tokens: int | None,
                     cached_tokens: int | None = None, written_tokens: int | None = None) -> None:
        self.budget = self.budget.report(input_tokens, output_tokens, cached_tokens, written_tokens)
        self.services.bus.publish(UsageUpdated(self.info()))

    def announce(self) -> None:
        """Tell the views the agent's snapshot changed (a fallback began or ended answering for it)."""
        self.services.bus.publish(UsageUpdated(self.info()))

    def settle_usage(self) -> None:
        self.budget = self.budget.settle()

    @property
    def needs_reply(self) -> bool:
        """The conversation ends with something the model has not answered yet."""
        return bool(self.conversation) and self.conversation[-1].role == "user"
