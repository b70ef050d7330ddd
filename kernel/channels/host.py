"""What the channels need from the kernel they run in: a port, as for automations (``AutomationHost``).

The composition root hands a ``ChannelHost`` over (``kernel.desks.host.RunHost``
serves both), so this room never imports the facade above it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol

if TYPE_CHECKING:
    from ledger import Entry

    from ..agents.process import AgentProcess
    from ..core.clock import Clock
    from ..core.events import AgentInfo, Event
    from ..core.messages import ImagePart
    from ..leases.lease import Lease


class ChannelHost(Protocol):
    @property
    def clock(self) -> Clock: ...
    def spawn(self, name: str | None = None, *, provider: str | None = None, model: str | None = None,
              budget: int | None = None, workspace: str | None = None, unattended: bool = False) -> AgentInfo: ...
    def send(self, agent_id: str, text: str, images: tuple[ImagePart, ...] = ()) -> None: ...
    async def wait(self, agent_id: str) -> AgentInfo: ...
    def process(self, agent_id: str) -> AgentProcess: ...  # UnknownAgent when it is not in the table
    def grant_lease(self, agent_id: str, scope: str, duration_s: float, by: str) -> Lease: ...
    def revoke_leases(self, agent_id: str, reason: str, by: str) -> list[Lease]: ...
    def record(self, entry: Entry) -> Entry: ...
    def subscribe(self, fn: Callable[[Event], None]) -> Callable[[], None]: ...
    # a photo fitted and kept (untrusted, origin "channel") for the agent's next message; ImageRefused if not one
    async def ingest_image(self, agent_id: str, data: bytes, label: str) -> ImagePart: ...
