"""One agent process: identity, state, budget, conversation, and its task.

State changes go through ``set_state`` so every change is published. The
conversation is an immutable tuple replaced on each append.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from dataclasses import dataclass, field

from ..budget import Budget
from ..events import AgentInfo, AgentStateChanged, UsageUpdated
from ..messages import Message, encodable
from ..states import AgentState
from ..workspace.root import Workspace
from .services import Services


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
    conversation: tuple[Message, ...] = ()
    turns: int = 0
    task: asyncio.Task[None] | None = None
    pause_requested: bool = False
    failure_kind: str = ""  # the ProviderError kind that failed it (automations tell "offline" from it)
    request_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def root(self) -> Workspace:
        return Workspace(Path(self.workspace))

    def info(self) -> AgentInfo:
        used = self.budget.used
        return AgentInfo(self.id, self.name, self.state, self.reason, self.provider, self.model,
                         self.budget.limit, used.input_tokens, used.output_tokens, self.started_at, self.workspace)

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
        message = encodable(message)
        last = self.conversation[-1] if self.conversation else None
        if message.role == "user" and last is not None and last.role == "user":
            merged = Message("user", last.parts + message.parts)
            self.conversation = self.conversation[:-1] + (merged,)
        else:
            self.conversation = self.conversation + (message,)

    def report_usage(self, input_tokens: int | None, output_tokens: int | None) -> None:
        self.budget = self.budget.report(input_tokens, output_tokens)
        self.services.bus.publish(UsageUpdated(self.info()))

    def settle_usage(self) -> None:
        self.budget = self.budget.settle()

    @property
    def needs_reply(self) -> bool:
        """The conversation ends with something the model has not answered yet."""
        return bool(self.conversation) and self.conversation[-1].role == "user"
