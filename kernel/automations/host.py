"""What the automations need from the kernel they run in: a port, not a reach-back.

Scheduled runs spawn an unattended agent, grant it their policy's leases as
``automation:<id>``, send it the objective, wait on the kernel clock, read
what it did and revoke its leases; the tool an agent proposes an automation
with reads the proposing agent's workspace and model. That is all: the
composition root (kernel/compose) hands an ``AutomationHost`` over, so this
room never imports the facade above it, lazily or otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ledger import Entry

    from ..agents.process import AgentProcess
    from ..config.settings import Settings
    from ..core.clock import Clock
    from ..core.events import AgentInfo
    from ..leases.lease import Lease


class AutomationHost(Protocol):
    """The kernel as an automation run sees it."""

    @property
    def clock(self) -> Clock: ...
    @property
    def settings(self) -> Settings: ...
    def spawn(self, name: str | None = None, *, provider: str | None = None, model: str | None = None,
              budget: int | None = None, workspace: str | None = None, unattended: bool = False,
              fallbacks: tuple[str, ...] | None = None, any_vendor: bool = False) -> AgentInfo: ...
    def send(self, agent_id: str, text: str) -> None: ...
    async def wait(self, agent_id: str) -> AgentInfo: ...
    def kill(self, agent_id: str, by: str = "user", reason: str = "killed by the user") -> AgentInfo: ...
    def process(self, agent_id: str) -> AgentProcess: ...  # UnknownAgent when it is not in the table
    def grant_lease(self, agent_id: str, scope: str, duration_s: float, by: str) -> Lease: ...
    def revoke_leases(self, agent_id: str, reason: str, by: str) -> list[Lease]: ...
    def entries(self, actor: str, kind: str, limit: int = 1000) -> list[Entry]: ...  # newest first
