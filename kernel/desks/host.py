"""``RunHost``: the kernel as automation runs and channels see it (``AutomationHost``, ``ChannelHost``).

Built by the composition root over the agents desk and the shared services,
so the automations room reaches the process table, the lease book and the
ledger through a declared port rather than the facade above it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from ledger import Entry

    from ..agents.process import AgentProcess
    from ..agents.services import Services
    from ..config.settings import Settings
    from ..core.clock import Clock
    from ..core.events import AgentInfo, Event
    from ..core.messages import ImagePart
    from ..leases.lease import Lease
    from .agents import Agents


class RunHost:
    def __init__(self, agents: Agents, services: Services) -> None:
        self._agents = agents
        self._services = services

    def spawn(self, name: str | None = None, *, provider: str | None = None, model: str | None = None,
              budget: int | None = None, workspace: str | None = None, unattended: bool = False,
              fallbacks: tuple[str, ...] | None = None, any_vendor: bool = False) -> AgentInfo:
        return self._agents.spawn(name, provider=provider, model=model, budget=budget, workspace=workspace,
                                  unattended=unattended, fallbacks=fallbacks, any_vendor=any_vendor)

    def send(self, agent_id: str, text: str, images: tuple[ImagePart, ...] = ()) -> None:
        self._agents.send(agent_id, text, images)

    async def wait(self, agent_id: str) -> AgentInfo:
        return await self._agents.wait(agent_id)

    def kill(self, agent_id: str, by: str = "user", reason: str = "killed by the user") -> AgentInfo:
        return self._agents.kill(agent_id, by, reason)

    @property
    def clock(self) -> Clock:
        return self._services.clock

    @property
    def settings(self) -> Settings:
        return self._services.settings

    def process(self, agent_id: str) -> AgentProcess:
        return self._agents.process(agent_id)

    def grant_lease(self, agent_id: str, scope: str, duration_s: float, by: str) -> Lease:
        return self._services.leases.grant(agent_id, scope, duration_s, by=by)

    def revoke_leases(self, agent_id: str, reason: str, by: str) -> list[Lease]:
        return self._services.leases.revoke_all(agent_id, reason, by=by)

    def entries(self, actor: str, kind: str, limit: int = 1000) -> list[Entry]:
        return self._services.ledger.page(actor=actor, kind=kind, limit=limit)

    # ---- what channels need besides (kernel.channels.host.ChannelHost) ----

    def record(self, entry: Entry) -> Entry:
        return self._services.record(entry)

    def subscribe(self, fn: Callable[[Event], None]) -> Callable[[], None]:
        return self._services.bus.subscribe(fn)

    async def ingest_image(self, agent_id: str, data: bytes, label: str) -> ImagePart:
        """A chat photo fitted and kept (untrusted, origin "channel") for ``agent_id``'s next message;
        ``ImageRefused`` when it is not a picture that can be shown."""
        part = await self._services.images.ingest(data, origin="channel", label=label, untrusted=True)
        self._agents.admit_picture(agent_id, part)
        return part
