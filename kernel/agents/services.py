"""What every agent process shares: ledger, clock, bus, leases, approver, tools, providers.

Passed in, never global, so tests and benchmarks build exactly the kernel
they need.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterator

from ledger import Entry, Ledger

from ..leases.approver import Approver
from ..core.clock import Clock
from .recent_changes import RecentChanges
from ..core.events import EventBus
from ..leases.book import LeaseBook
from ..providers.base import Provider
from ..config.settings import Settings
from ..tools.descriptor import ToolLimits

if TYPE_CHECKING:
    from ..extensions.context import Extensions
    from ..tools.registry import ToolRegistry

ProviderFactory = Callable[[str], Provider]


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
    attached: bool = False            # a desktop is there to answer lease requests
    limits: ToolLimits = field(default_factory=ToolLimits)
    request_ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    recent: RecentChanges = field(init=False)
    extensions: "Extensions" = field(init=False)  # AGENTS.md, skills (kernel/extensions)

    def __post_init__(self) -> None:
        self.recent = RecentChanges(self.ledger)
        from ..extensions.context import Extensions

        home = None if self.ledger.path in ("", ":memory:") else Path(self.ledger.path).parent
        self.extensions = Extensions(home, self.ledger, self.tools)

    def record(self, entry: Entry) -> Entry:
        """Append to the ledger (the kernel announces every append as LedgerAppended)."""
        return self.ledger.append(entry)
