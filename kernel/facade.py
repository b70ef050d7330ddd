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
import threading
from pathlib import Path
from typing import Callable, Sequence

from ledger import AgentKill, Entry, Integrity, Ledger, UndoReport

from .agents.ids import record_spawn
from .agents.loop import run_loop
from .agents.process import AgentProcess
from .agents.services import ProviderFactory, Services
from .approver import Approver, Decision, LeaseRequest
from .budget import Budget
from .clock import Clock, SystemClock
from .errors import InvalidState, UnknownAgent
from .events import (
    AgentInfo, AgentKilled, AgentSpawned, Event, EventBus, LeaseGranted, LedgerAppended, PermissionRequested,
    PermissionResolved, UsageUpdated, UserMessage,
)
from .lease_book import LeaseBook
from .leases import Lease
from .messages import Message, user_text
from .settings import Settings
from .tools.descriptor import ToolLimits
from .tools.fs.stale import sweep_temp_files
from .snapshot import SnapshotIndexes
from .tools.registry import ToolRegistry, builtin_registry
from .tools.shell import shell_tool
from .tools.workspace import Workspace
from .watch import OutsideWatcher


class PendingApprover:
    """Holds each lease request open until someone calls ``Kernel.resolve_request``.

    An answer may arrive before ``decide`` has started waiting (the request was
    published, a dialog answered at once): it is kept and used when it starts.
    """

    def __init__(self) -> None:
        self.open: dict[int, asyncio.Future[Decision]] = {}
        self.early: dict[int, Decision] = {}

    async def decide(self, request: LeaseRequest) -> Decision:
        if request.id in self.early:
            return self.early.pop(request.id)
        fut: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self.open[request.id] = fut
        try:
            return await fut
        finally:
            self.open.pop(request.id, None)

    def resolve(self, request_id: int, decision: Decision) -> bool:
        fut = self.open.get(request_id)
        if fut is None:
            self.early[request_id] = decision
            return True
        if fut.done():
            return False
        fut.set_result(decision)
        return True

    def forget(self, request_id: int) -> None:
        self.early.pop(request_id, None)


class Kernel:
    def __init__(self, *, ledger: Ledger, settings: Settings, providers: ProviderFactory,
                 clock: Clock | None = None, approver: Approver | None = None,
                 tools: ToolRegistry | None = None, attached: bool = False, bus: EventBus | None = None,
                 snapshot_dir: Path | None = None, watch_workspaces: bool = False) -> None:
        """``snapshot_dir`` keeps the shell tool's snapshot cache between runs; ``watch_workspaces``
        records edits by other programs in every workspace an agent works in (the desktop does)."""
        clock = clock or SystemClock()
        bus = bus or EventBus()
        self._pending = PendingApprover()
        self.snapshots = SnapshotIndexes(ledger, max_blob=settings.blob_max_bytes, cache_dir=snapshot_dir)
        if tools is None:
            tools = builtin_registry(extra=(shell_tool(lambda: self.services.settings, self.snapshots),))
        self.services = Services(
            ledger=ledger, clock=clock, bus=bus, leases=LeaseBook(ledger, clock, bus.publish),
            approver=approver or self._pending, tools=tools, providers=providers,
            settings=settings, attached=attached, limits=ToolLimits(blob_max_bytes=settings.blob_max_bytes),
        )
        self._agents: dict[str, AgentProcess] = {}
        self._expiry_task: asyncio.Task[None] | None = None
        self._watch = watch_workspaces
        self._thread = threading.get_ident()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._unlisten = ledger.listen(self._announce)
        self._requests: dict[int, LeaseRequest] = {}
        bus.subscribe(self._track_requests)
        self._watchers: dict[str, OutsideWatcher] = {}
        self._swept: set[str] = set()
        self._integrity = ledger.check_at_start()

    # ---- time and settings -----------------------------------------------------

    def now(self) -> float:
        """The kernel clock (lease ``until`` and request ``expires_at`` are on it)."""
        return self.services.clock.now()

    @property
    def settings(self) -> Settings:
        return self.services.settings

    def update_settings(self, settings: Settings) -> None:
        """Use new settings from now on: new agents, lease requests and prompts see them
        (agents already running keep their provider, model and budget)."""
        settings.validate()
        self.services.settings = settings

    # ---- events ------------------------------------------------------------

    @property
    def bus(self) -> EventBus:
        return self.services.bus

    def subscribe(self, fn: Callable[[Event], None]) -> Callable[[], None]:
        return self.services.bus.subscribe(fn)

    def _announce(self, entry: Entry) -> None:
        """Every entry appended through this kernel's ledger becomes a LedgerAppended event,
        published on the kernel's own thread even when a worker thread appended it."""
        event = LedgerAppended(entry)
        if threading.get_ident() == self._thread or self._loop is None:
            self.services.bus.publish(event)
        else:
            self._loop.call_soon_threadsafe(self.services.bus.publish, event)

    # ---- processes ---------------------------------------------------------

    def spawn(self, name: str | None = None, *, provider: str | None = None, model: str | None = None,
              budget: int | None = None, workspace: str | None = None) -> AgentInfo:
        s = self.services
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
        if self._watch:
            self._watch_workspace(root)
        return agent.info()

    def _watch_workspace(self, root: Path) -> None:
        """Start recording outside edits in ``root`` (its first snapshot is taken off the loop)."""
        if str(root) in self._watchers:
            return
        watcher = OutsideWatcher(root, self.services.ledger, self.snapshots.for_root(root))
        self._watchers[str(root)] = watcher
        asyncio.get_running_loop().run_in_executor(None, watcher.start)

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
        self.services.bus.publish(UserMessage(agent.id, text))
        return self._start(agent)

    def pause(self, agent_id: str) -> None:
        """Pause at the next step (before the next model request)."""
        agent = self._get(agent_id)
        if agent.killed:
            raise InvalidState(agent.id, agent.state, "pause")
        if agent.busy:
            agent.pause_requested = True
        elif agent.state != "paused":
            agent.set_state("paused", "paused by the user")

    def resume(self, agent_id: str) -> asyncio.Task[None] | None:
        """Continue a paused agent; returns the running task, or None when there was nothing to continue."""
        agent = self._get(agent_id)
        if agent.state != "paused":
            raise InvalidState(agent.id, agent.state, "resume")
        agent.pause_requested = False
        if agent.needs_reply:
            return self._start(agent)
        agent.set_state("idle")
        return None

    def raise_budget(self, agent_id: str, budget: int) -> AgentInfo:
        agent = self._get(agent_id)
        agent.budget = agent.budget.raised_to(budget)
        self.services.bus.publish(UsageUpdated(agent.info()))
        return agent.info()

    def kill(self, agent_id: str, by: str = "user", reason: str = "killed by the user") -> AgentInfo:
        """Cancel the agent's work, revoke its leases, record the kill. Final."""
        agent = self._get(agent_id)
        if agent.killed:
            return agent.info()
        agent.set_state("killed", reason)
        if agent.task is not None and not agent.task.done():
            agent.task.cancel()
        s = self.services
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
        agent.set_state("running")
        agent.task = asyncio.get_running_loop().create_task(run_loop(agent), name=f"agent {agent.id}")
        agent.task.add_done_callback(_swallow_cancel)
        return agent.task

    def _get(self, agent_id: str) -> AgentProcess:
        try:
            return self._agents[agent_id]
        except KeyError:
            raise UnknownAgent(agent_id) from None

    # ---- leases ------------------------------------------------------------

    def leases(self, agent_id: str | None = None) -> list[Lease]:
        return self.services.leases.live(agent_id)

    def revoke_lease(self, lease_id: int) -> Lease | None:
        return self.services.leases.revoke(lease_id, "revoked by the user")

    def pending_requests(self) -> list[LeaseRequest]:
        """Lease requests asked and not yet resolved, oldest first."""
        return list(self._requests.values())

    def resolve_request(self, request_id: int, decision: Decision) -> bool:
        """Answer an open lease request (desktop dialogs); False when it is no longer open."""
        if request_id not in self._requests:
            return False
        return self._pending.resolve(request_id, decision)

    def _track_requests(self, event: Event) -> None:
        if isinstance(event, PermissionRequested):
            self._requests[event.request.id] = event.request
        elif isinstance(event, PermissionResolved):
            self._requests.pop(event.request_id, None)
            self._pending.forget(event.request_id)

    def _ensure_expiry_watch(self) -> None:
        if self._expiry_task is None or self._expiry_task.done():
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            self._loop = loop
            self._expiry_task = loop.create_task(self._watch_expiry(), name="lease expiry")

    async def _watch_expiry(self) -> None:
        """Record each lease's expiry when its time comes (checks never wait for this)."""
        leases, clock = self.services.leases, self.services.clock
        changed = asyncio.Event()
        unsubscribe = self.subscribe(lambda e: changed.set() if isinstance(e, LeaseGranted) else None)
        try:
            while True:
                changed.clear()
                due = leases.next_expiry()
                waiters: list[asyncio.Future[object]] = [asyncio.ensure_future(changed.wait())]
                if due is not None:
                    waiters.append(asyncio.ensure_future(clock.sleep_until(due)))
                try:
                    await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for w in waiters:
                        w.cancel()
                leases.sweep()
        finally:
            unsubscribe()

    # ---- ledger ------------------------------------------------------------

    @property
    def ledger(self) -> Ledger:
        return self.services.ledger

    def ledger_page(self, **filters) -> list[Entry]:
        """Entries newest first (``before``, ``after``, ``limit``, ``actor``, ``kind``, ``path``)."""
        return self.services.ledger.page(**filters)

    def ledger_integrity(self) -> Integrity:
        """What the check at start found: Intact (verified up to a seq) or Broken (first broken seq,
        reason). The full check is ``agentdesk ledger verify``."""
        return self._integrity

    def ledger_count(self) -> int:
        return self.services.ledger.count()

    def last_seq(self) -> int:
        return self.services.ledger.last_seq()

    def caused_by(self, seq: int) -> list[Entry]:
        """What a tool call (its result, its file changes) or an undo (its reversals) caused."""
        return self.services.ledger.caused_by(seq)

    def undone_by(self, seqs: Sequence[int]) -> dict[int, int]:
        """Which of these file changes are undone now, and by which undo entry."""
        return self.services.ledger.undone_by(seqs)

    def diff(self, seq: int) -> str:
        """A unified diff of one file change."""
        return self.services.ledger.diff(seq)

    def undo(self, after_seq: int, *, only_actor: str | None = None, dry_run: bool = False) -> UndoReport:
        return self.services.ledger.undo(after_seq, by="user", only_actor=only_actor, dry_run=dry_run)

    # ---- shutdown ----------------------------------------------------------

    async def aclose(self) -> None:
        """Stop every working agent (recorded as killed by the kernel) and the expiry watch."""
        tasks = []
        for agent in self._agents.values():
            if agent.busy:
                self.kill(agent.id, by="kernel", reason="the kernel shut down")
                tasks.append(agent.task)
        if self._expiry_task is not None:
            self._expiry_task.cancel()
            tasks.append(self._expiry_task)
        if tasks:
            await asyncio.wait([t for t in tasks if t is not None])
        self._unlisten()
        watchers, self._watchers = list(self._watchers.values()), {}
        for watcher in watchers:
            await asyncio.to_thread(watcher.stop)
        self.snapshots.close()


def _swallow_cancel(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved so asyncio does not warn; run_loop already marked the agent failed


__all__: Sequence[str] = ("Kernel", "PendingApprover")
