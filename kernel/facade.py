"""The kernel facade: the one object the desktop and the CLI talk to.

It is the process table (spawn, list, send, kill, pause, resume, raise a
budget), the lease desk (live leases, revoke, answer open requests) and the
ledger's window (page, entry, diff, undo, and what the ledger's check at
start found), and it publishes every change as a typed event. Nothing
outside the kernel reaches past it, so the same facade can later be served
over a local socket to a desktop in another process.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Callable, Sequence

from ledger import KERNEL, USER, AgentKill, Entry, Integrity, Ledger, UndoReport

from .agents.ids import record_spawn
from .agents.loop import run_loop
from .agents.process import AgentProcess
from .agents.services import ProviderFactory, Services
from .automations.confirm import Confirmer, PendingConfirmations
from .automations.gate import UnattendedGate
from .automations.service import Automations
from .automations.store import AutomationStore
from .automations.tool import automation_tool
from .api import LedgerFilter, ToolInfo
from .approver import Approver, Decision, LeaseRequest
from .budget import Budget
from .clock import Clock, SystemClock
from .errors import InvalidState, UnknownAgent
from .events import (AgentInfo, AgentKilled, AgentSpawned, ConfirmationRequested, Event, EventBus, LedgerAppended, ToolCallFinished,
                     UsageUpdated, UserMessage)
from .kernel_loop import KernelLoop
from .lease_book import LeaseBook
from .lease_requests import LeaseRequests, PendingApprover
from .leases import Lease
from .messages import Message, user_text
from .settings import Settings
from .states import AgentState, Outcome
from .tools.descriptor import ToolLimits
from .tools.fs.stale import sweep_temp_files
from .workspace.snapshot import SnapshotIndexes
from .tools.registry import ToolRegistry, builtin_registry
from .tools.shell import shell_tool
from .workspace.root import Workspace
from .workspace.watch import OutsideWatchers


class Kernel:
    """The facade (``kernel.api.KernelFacade``): what it gives out is plain data from ``kernel.api``."""

    def __init__(self, *, ledger: Ledger, settings: Settings, providers: ProviderFactory,
                 clock: Clock | None = None, approver: Approver | None = None,
                 tools: ToolRegistry | None = None, attached: bool = False, bus: EventBus | None = None,
                 snapshot_dir: Path | None = None, watch_workspaces: bool = False,
                 provider_problem: Callable[[str], str | None] | None = None,
                 confirmer: Confirmer | None = None) -> None:
        """``snapshot_dir`` keeps the shell tool's snapshot cache between runs; ``watch_workspaces``
        records edits by other programs in every workspace an agent works in (the desktop does);
        ``provider_problem`` says why a provider cannot be used yet (a missing key), or None."""
        clock = clock or SystemClock()
        bus = bus or EventBus()
        self._requests = LeaseRequests(bus)
        self._snapshots = SnapshotIndexes(ledger, max_blob=settings.blob_max_bytes, cache_dir=snapshot_dir)
        if tools is None:
            tools = builtin_registry(extra=(shell_tool(lambda: self._services.settings, self._snapshots),
                                            automation_tool(self)))
        self.confirmations = PendingConfirmations(bus.publish)
        self.confirmer: Confirmer = confirmer or self.confirmations
        # automation runs are unattended: their lease requests are refused at once (automations/gate.py)
        self.automation_gate = UnattendedGate(approver or self._requests.approver,
                                              lambda a, scope, detail: self.automations.refused(a, scope, detail))
        self._services = Services(
            ledger=ledger, clock=clock, bus=bus, leases=LeaseBook(ledger, clock, bus.publish),
            approver=self.automation_gate, tools=tools, providers=providers,
            settings=settings, attached=attached, limits=ToolLimits(blob_max_bytes=settings.blob_max_bytes),
        )
        self._agents: dict[str, AgentProcess] = {}
        self._loop = KernelLoop()
        self._unlisten = ledger.listen(self._announce)
        self._watchers = OutsideWatchers(ledger, self._snapshots) if watch_workspaces else None
        self._swept: set[str] = set()
        self._provider_problem = provider_problem
        self._integrity = ledger.check_at_start()
        self._automations = Automations(self, AutomationStore(ledger.path), self.automation_gate, bus.publish)
        self._unlisten_runs = bus.subscribe(self._note_run_progress)

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

    def provider_problem(self, provider: str) -> str | None:
        """Why ``provider`` cannot be used yet (no API key, say), in words; None when it can."""
        return None if self._provider_problem is None else self._provider_problem(provider)

    def tools(self) -> list[ToolInfo]:
        """The tools agents may call, with the scope each asks a lease for."""
        return [ToolInfo(d.name, d.scope, str(d.risk), d.trusted) for d in self._services.tools.descriptors()]

    # ---- events ------------------------------------------------------------

    def subscribe(self, fn: Callable[[Event], None]) -> Callable[[], None]:
        return self._services.bus.subscribe(fn)

    def _announce(self, entry: Entry) -> None:
        """Every entry appended through this kernel's ledger becomes a LedgerAppended event,
        published on the kernel's own thread even when a worker thread appended it."""
        self._loop.call_soon(self._services.bus.publish, LedgerAppended(entry))

    # ---- processes ---------------------------------------------------------

    def spawn(self, name: str | None = None, *, provider: str | None = None, model: str | None = None,
              budget: int | None = None, workspace: str | None = None) -> AgentInfo:
        s = self._services
        provider = provider or s.settings.provider
        model = model or s.settings.model_for(provider)
        budget = budget or s.settings.default_budget
        if budget <= 0:
            raise ValueError("a budget must be a positive number of tokens")
        ledger_folder = () if s.ledger.path in ("", ":memory:") else (Path(s.ledger.path).parent,)
        # the default workspace is made on first use (once it is known to be allowed)
        root = Workspace.at(workspace or s.settings.workspace, holding=ledger_folder, create=workspace is None).root
        entry = record_spawn(s.ledger, name=name, provider=provider, model=model, budget=budget, workspace=str(root))
        agent = AgentProcess(entry.actor, entry.name, provider, model, str(root), entry.ts, s, Budget(budget))
        self._agents[agent.id] = agent
        s.bus.publish(AgentSpawned(agent.info()))
        self._ensure_expiry_watch()
        if str(root) not in self._swept:  # temporary files a killed write left
            self._swept.add(str(root))
            sweep_temp_files(root)
        if self._watchers is not None:
            self._watchers.watch(root, self._loop.running())
        return agent.info()

    def agents(self) -> list[AgentInfo]:
        return [a.info() for a in self._agents.values()]

    def agent(self, agent_id: str) -> AgentInfo:
        return self._get(agent_id).info()

    def conversation(self, agent_id: str) -> tuple[Message, ...]:
        return self._get(agent_id).conversation

    def send(self, agent_id: str, text: str) -> asyncio.Task[None]:
        """Add a user message and run the loop until idle, paused, failed or killed."""
        agent = self._get(agent_id)
        if agent.killed:
            raise InvalidState(agent.id, agent.state, "send")
        if agent.busy:
            raise InvalidState(agent.id, agent.state, "send while it is working (stop or wait first)")
        if not text.strip():
            raise ValueError("the message is empty")
        agent.append(user_text(text))
        self._services.bus.publish(UserMessage(agent.id, text))
        return self._start(agent)

    def pause(self, agent_id: str) -> None:
        """Pause at the next step (before the next model request)."""
        agent = self._get(agent_id)
        if agent.killed:
            raise InvalidState(agent.id, agent.state, "pause")
        if agent.busy:
            agent.pause_requested = True
        elif agent.state is not AgentState.PAUSED:
            agent.set_state(AgentState.PAUSED, "paused by the user")

    def resume(self, agent_id: str) -> asyncio.Task[None] | None:
        """Continue a paused agent; returns the running task, or None when there was nothing to continue."""
        agent = self._get(agent_id)
        if agent.state is not AgentState.PAUSED:
            raise InvalidState(agent.id, agent.state, "resume")
        agent.pause_requested = False
        if agent.needs_reply:
            return self._start(agent)
        agent.set_state(AgentState.IDLE)
        return None

    def raise_budget(self, agent_id: str, budget: int) -> AgentInfo:
        agent = self._get(agent_id)
        agent.budget = agent.budget.raised_to(budget)
        self._services.bus.publish(UsageUpdated(agent.info()))
        return agent.info()

    def kill(self, agent_id: str, by: str = USER, reason: str = "killed by the user") -> AgentInfo:
        """Cancel the agent's work, revoke its leases, record the kill. Final."""
        agent = self._get(agent_id)
        if agent.killed:
            return agent.info()
        agent.set_state(AgentState.KILLED, reason)
        if agent.task is not None and not agent.task.done():
            agent.task.cancel()
        s = self._services
        s.leases.revoke_all(agent.id, "the agent was killed", by=by)
        s.record(AgentKill(actor=by, subject=agent.id, reason=reason))
        s.bus.publish(AgentKilled(agent.info(), by))
        return agent.info()

    async def wait(self, agent_id: str) -> AgentInfo:
        """Wait until the agent's current work is over; returns its state then."""
        agent = self._get(agent_id)
        if agent.task is not None:
            await asyncio.wait({agent.task})
        return agent.info()

    def _start(self, agent: AgentProcess) -> asyncio.Task[None]:
        self._ensure_expiry_watch()
        agent.set_state(AgentState.RUNNING)
        agent.task = self._loop.running().create_task(run_loop(agent), name=f"agent {agent.id}")
        agent.task.add_done_callback(_swallow_cancel)
        return agent.task

    def _get(self, agent_id: str) -> AgentProcess:
        try:
            return self._agents[agent_id]
        except KeyError:
            raise UnknownAgent(agent_id) from None

    # ---- leases ------------------------------------------------------------

    def leases(self, agent_id: str | None = None) -> list[Lease]:
        return self._services.leases.live(agent_id)

    def grant_lease(self, agent_id: str, scope: str, duration_s: float) -> Lease:
        """Grant a lease as the user without being asked (``ask --grant``, benchmarks, tests)."""
        return self._services.leases.grant(agent_id, scope, duration_s)

    def revoke_lease(self, lease_id: int) -> Lease | None:
        return self._services.leases.revoke(lease_id, "revoked by the user")

    def pending_requests(self) -> list[LeaseRequest]:
        """Lease requests asked and not yet resolved, oldest first."""
        return self._requests.pending()

    def resolve_request(self, request_id: int, decision: Decision) -> bool:
        """Answer an open lease request (desktop dialogs); False when it is no longer open."""
        return self._requests.resolve(request_id, decision)

    def _ensure_expiry_watch(self) -> None:
        loop = self._loop.capture()
        if loop is not None:
            self._services.leases.start_expiry_watch(loop)

    # ---- ledger ------------------------------------------------------------

    def ledger_page(self, filters: LedgerFilter = LedgerFilter(), *, before: int | None = None,
                    after: int | None = None, limit: int = 200) -> list[Entry]:
        """Entries newest first, with seq < ``before`` and > ``after``, matching ``filters``."""
        return self._services.ledger.page(before=before, after=after, limit=limit, actor=filters.actor,
                                          kind=filters.kind, path=filters.path)

    def ledger_integrity(self) -> Integrity:
        """What the check at start found: Intact (verified up to a seq) or Broken (first broken seq,
        reason). The full check is ``agentdesk ledger verify``."""
        return self._integrity

    def ledger_count(self) -> int:
        return self._services.ledger.count()

    def last_seq(self) -> int:
        return self._services.ledger.last_seq()

    def caused_by(self, seq: int) -> list[Entry]:
        """What a tool call (its result, its file changes) or an undo (its reversals) caused."""
        return self._services.ledger.caused_by(seq)

    def undone_by(self, seqs: Sequence[int]) -> dict[int, int]:
        """Which of these file changes are undone now, and by which undo entry."""
        return self._services.ledger.undone_by(seqs)

    def diff(self, seq: int) -> str:
        """A unified diff of one file change."""
        return self._services.ledger.diff(seq)

    def undo(self, after_seq: int, *, only_actor: str | None = None, dry_run: bool = False) -> UndoReport:
        return self._services.ledger.undo(after_seq, by=USER, only_actor=only_actor, dry_run=dry_run)

    # ---- for automation runs (kernel/automations) ---------------------------------

    @property
    def automations(self) -> Automations:
        """The automations desk: definitions, runs, the Inbox (kernel/automations/service.py)."""
        return self._automations

    @property
    def clock(self) -> Clock:
        return self._services.clock

    def process(self, agent_id: str) -> AgentProcess:
        """The agent process itself (kernel components only; the desktop gets ``agent``)."""
        return self._get(agent_id)

    def grant_lease_as(self, agent_id: str, scope: str, duration_s: float, by: str) -> Lease:
        return self._services.leases.grant(agent_id, scope, duration_s, by=by)

    def revoke_all_as(self, agent_id: str, reason: str, by: str) -> list[Lease]:
        return self._services.leases.revoke_all(agent_id, reason, by=by)

    def ledger_page_of(self, actor: str, kind: str, limit: int = 1000) -> list[Entry]:
        return self._services.ledger.page(actor=actor, kind=kind, limit=limit)

    def pending_confirmations(self) -> list[ConfirmationRequested]:
        return self.confirmations.pending()

    def resolve_confirmation(self, request_id: int, confirmed: bool) -> bool:
        """Answer a one-off confirmation (the desktop's dialog); False when it is no longer open."""
        return self.confirmations.resolve(request_id, confirmed)

    def _note_run_progress(self, event: Event) -> None:
        if isinstance(event, ToolCallFinished) and event.outcome is Outcome.OK:
            self.automation_gate.succeeded(event.agent_id)

    # ---- shutdown ----------------------------------------------------------

    async def aclose(self) -> None:
        """Stop every working agent (recorded as killed by the kernel) and the expiry watch."""
        await self.automations.stop()
        tasks = []
        for agent in self._agents.values():
            if agent.busy:
                self.kill(agent.id, by=KERNEL, reason="the kernel shut down")
                tasks.append(agent.task)
        tasks.append(self._services.leases.stop_expiry_watch())
        if any(t is not None for t in tasks):
            await asyncio.wait([t for t in tasks if t is not None])
        await self.automations.drain()
        self._unlisten()
        if self._watchers is not None:
            await self._watchers.close()
        self._snapshots.close()
        self._unlisten_runs()


def _swallow_cancel(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved so asyncio does not warn; run_loop already marked the agent failed


__all__: Sequence[str] = ("Kernel", "PendingApprover")
