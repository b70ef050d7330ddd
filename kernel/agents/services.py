"""What every agent process shares: ledger, clock, bus, leases, approver, tools, providers, extensions.

Passed in, never global, so tests and benchmarks build exactly the kernel
they need. The extensions (AGENTS.md, skills: ``kernel.extensions``) sit
above the agents: the composition root builds them and hands them over as
``AgentExtensions``, the two things an agent asks of them.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Protocol

from ledger import Entry, Ledger

from ..leases.approver import Approver
from ..core.clock import Clock
from .inflight import InFlightJournal
from .recent_changes import RecentChanges
from ..core.events import EventBus
from ..leases.book import LeaseBook
from ..providers.base import Provider
from ..routes.breaker import BreakerBoard
from ..config.settings import Settings
from ..images.store import ImageStore
from ..tools.descriptor import ToolDescriptor, ToolLimits

if TYPE_CHECKING:
    from ..tools.registry import ToolRegistry

ProviderFactory = Callable[[str], Provider]


class AgentShown(Protocol):
    """What the extensions are told of an agent (an ``AgentProcess``): which one, and where it works."""

    @property
    def id(self) -> str: ...

    @property
    def workspace(self) -> str: ...


class AgentExtensions(Protocol):
    """What an agent asks of the extensions (``kernel.extensions.context.Extensions`` is one)."""

    def prompt_lines(self, agent: AgentShown) -> list[str]:
        """The system prompt's lines they add for ``agent`` (AGENTS.md, the enabled skills)."""
        ...

    def refusal(self, agent: AgentShown, tool: ToolDescriptor, tool_input: Mapping[str, Any],
                scope: str) -> str | None:
        """Why a call is outside what they allow ``agent`` (a loaded skill's manifest), or None."""
        ...


@dataclass
class Services:
    ledger: Ledger
    clock: Clock
    bus: EventBus
    leases: LeaseBook
    approver: Approver
    tools: "ToolRegistry"
    providers: ProviderFactory
    settings: Settings
    extensions: AgentExtensions       # AGENTS.md, skills (kernel/extensions), built by the composition root
    attached: bool = False            # a desktop is there to answer lease requests
    limits: ToolLimits = field(default_factory=ToolLimits)
    request_ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    breakers: BreakerBoard = field(default_factory=BreakerBoard)  # one per kernel: per (provider, model)
    recent: RecentChanges = field(init=False)
    images: ImageStore = field(init=False)  # pictures fitted once, kept by hash in the ledger's blob store
    # told of each pause asked of a busy agent (agent id): the MCP hub ends its calls in flight (issue 29)
    on_pause: list[Callable[[str], None]] = field(default_factory=list)
    inflight: InFlightJournal = field(init=False)  # tokens of requests being streamed, for a kernel killed mid-way

    def __post_init__(self) -> None:
        self.recent = RecentChanges(self.ledger)
        self.images = ImageStore(self.ledger)
        self.inflight = InFlightJournal.beside(self.ledger)

    def record(self, entry: Entry) -> Entry:
        """Append to the ledger (the kernel announces every append as LedgerAppended)."""
        return self.ledger.append(entry)
