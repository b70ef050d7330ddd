"""The kernel facade: the one object the desktop and the CLI talk to.

A few methods of its own (the clock, settings, tools, the sandbox's mode,
events, shutdown) and six desks (``kernel.api``): ``agents`` (the process
table and History), ``leases``, ``ledger`` (the ledger's window),
``extensions`` (MCP servers, skills), ``outward`` (calls whose outcome is
unknown) and ``automations``. It builds nothing: the composition root
(``kernel.compose.build_kernel``) makes the parts and hands them over.
Nothing outside the kernel reaches past it, so the same facade is served
over a local socket to a desktop in another process (kernel/service).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from ledger import KERNEL

from .agents.rebuild import KERNEL_STOPPED
from .api import ToolInfo
from .core.events import AgentInfo, Event, StartChecked
from .core.states import AgentState

if TYPE_CHECKING:
    from ledger import Integrity

    from .agents.services import Services
    from .automations.chain import ChainBroken, ChainIntact
    from .automations.service import Automations
    from .channels.hub import ChannelHub
    from .config.settings import Settings
    from .desks import Agents, ExtensionsDesk, Leases, LedgerWindow, Outward
    from .redaction import SecretRegistry
    from .sandbox.overlay import OverlayStatus
    from .tools.shell import ShellTool
    from .workspace.snapshot import SnapshotIndexes
    from .workspace.watch import OutsideWatchers


class Kernel:
    """The facade (``kernel.api.KernelFacade``): what it gives out is plain data from ``kernel.api``."""

    def __init__(self, *, services: Services, agents: Agents, leases: Leases, ledger: LedgerWindow,
                 extensions: ExtensionsDesk, outward: Outward, automations: Automations, channels: ChannelHub,
                 secrets: SecretRegistry,
                 shell: ShellTool, snapshots: SnapshotIndexes, watchers: OutsideWatchers | None,
                 provider_problem: Callable[[str], str | None] | None,
                 on_close: Sequence[Callable[[], None]] = ()) -> None:
        """The parts ``kernel.compose.build_kernel`` made: ``secrets`` is the ledger redactor's registry;
        ``shell`` is kept because its stage folders close with the kernel and it knows the overlay mode;
        ``on_close`` are the listeners the composition root hooked up, let go at ``aclose``."""
        self._services = services
        self._agents = agents.table  # the process table (agents are reached through ``agents``)
        self._desks = (agents, leases, ledger, extensions, outward, automations)
        self._channels = channels
        self.secrets = secrets
        self._shell = shell
        self._snapshots = snapshots
        self._watchers = watchers
        self._provider_problem = provider_problem
        self._on_close = tuple(on_close)

    # ---- the desks -----------------------------------------------------------------

    @property
    def agents(self) -> Agents:
        """The process table and History (kernel/desks/agents.py)."""
        return self._desks[0]

    @property
    def leases(self) -> Leases:
        return self._desks[1]

    @property
    def ledger(self) -> LedgerWindow:
        return self._desks[2]

    @property
    def extensions(self) -> ExtensionsDesk:
        """MCP servers and skills (kernel/desks/extensions.py)."""
        return self._desks[3]

    @property
    def outward(self) -> Outward:
        return self._desks[4]

    @property
    def automations(self) -> Automations:
        """The automations desk: definitions, runs, the Inbox (kernel/automations/service.py)."""
        return self._desks[5]

    @property
    def channels(self) -> ChannelHub:
        """Chat channels and their pairing gate (kernel/channels/hub.py)."""
        return self._channels

    # ---- time and settings -----------------------------------------------------

    def now(self) -> float:
        """The kernel clock (lease ``until`` and request ``expires_at`` are on it)."""
        return self._services.clock.now()

    @property
    def settings(self) -> Settings:
        return self._services.settings

    def update_settings(self, settings: Settings) -> None:
        """Use new settings from now on: new agents, lease requests and prompts see them
        (agents already running keep their provider, model and budget)."""
        settings.validate()
        self._services.settings = settings

    def hold_secret(self, value: str, label: str = "secret") -> bool:
        """Keep ``value`` out of every ledger entry from now on (a key just saved); False if too short to hold."""
        return self.secrets.add(value, label)

    def provider_problem(self, provider: str) -> str | None:
        """Why ``provider`` cannot be used yet (no API key, say), in words; None when it can."""
        return None if self._provider_problem is None else self._provider_problem(provider)

    def set_attached(self, attached: bool) -> None:
        """Whether a client that can answer lease requests is connected now (the service says;
        the system prompt tells the model)."""
        self._services.attached = attached

    def tools(self) -> list[ToolInfo]:
        """The tools agents may call, with the scope each asks a lease for."""
        return [ToolInfo(d.name, d.scope, str(d.risk), d.trusted, d.always_confirm) for d in self._services.tools.descriptors()]

    async def sandbox_mode(self, workspace: str | None = None) -> OverlayStatus:
        """How shell commands in ``workspace`` (default: Settings' workspace) are captured on this machine:
        on an overlay, or by snapshots and why (probed once per filesystem, off the loop)."""
        root = Path(workspace or self._services.settings.workspace).expanduser()
        return await asyncio.to_thread(self._shell.overlay_status, root)

    # ---- events ------------------------------------------------------------

    def start_checked(self, ledger: Integrity, automations: ChainIntact | ChainBroken) -> None:
        """The checks at start answered (the kernel service runs them after it serves): the desks say so from
        now on and a ``StartChecked`` event per check tells every view to ask again."""
        self.ledger.checked(ledger)
        self.automations.checked(automations)
        for what in ("ledger", "automation records"):
            self._services.bus.publish(StartChecked(what))

    def subscribe(self, fn: Callable[[Event], None]) -> Callable[[], None]:
        return self._services.bus.subscribe(fn)

    # ---- shutdown ----------------------------------------------------------

    async def interrupt_working(self, reason: str = KERNEL_STOPPED) -> list[AgentInfo]:
        """A clean shutdown (``agentdesk kernel --stop``, SIGTERM): every working agent stops
        ``interrupted`` instead of killed, its leases untouched, so it comes back as after a
        kill -9 and continues only when resumed; automation runs end ``interrupted``."""
        await self.automations.stop()
        await self._channels.stop_adapters()  # no new chat message starts work while agents stop
        stopped = [a for a in self._agents.values() if a.busy]
        for agent in stopped:
            agent.set_state(AgentState.INTERRUPTED, reason)
            assert agent.task is not None
            agent.task.cancel()
        if stopped:
            await asyncio.wait([a.task for a in stopped if a.task is not None])
        await self.automations.drain()
        return [a.info() for a in stopped]

    async def aclose(self) -> None:
        """Stop the channels, every working agent (recorded as killed by the kernel) and the expiry watch."""
        await self._channels.stop()
        await self.automations.stop()
        tasks = []
        for agent in self._agents.values():
            if agent.busy:
                self.agents.kill(agent.id, by=KERNEL, reason="the kernel shut down")
                tasks.append(agent.task)
        tasks.append(self._services.leases.stop_expiry_watch())
        if any(t is not None for t in tasks):
            await asyncio.wait([t for t in tasks if t is not None])
        await self.automations.drain()
        for let_go in self._on_close:
            let_go()
        await self.extensions.aclose()
        if self._watchers is not None:
            await self._watchers.close()
        self._snapshots.close()
        await asyncio.to_thread(self._shell.close)  # its stage folders (no command runs any more)


__all__: Sequence[str] = ("Kernel",)
