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
import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from ledger import KERNEL, USER, AgentArchive, AgentBudget, AgentKill, Entry, Integrity, Ledger, UndoReport, UntrustedSeen

from .agents.ids import record_spawn
from .agents.loop import run_loop
from .agents.process import AgentProcess
from .agents.services import ProviderFactory, Services
from .agents.rebuild import AgentRecord, conversation_of, summarise
from .agents.rebuild import KERNEL_STOPPED
from .agents.records import RESUME, USER_TURN, record_user_turn
from .agents.restore import history_item, process_from
from .automations import chain_start
from .automations.chain import ChainBroken, ChainIntact
from .automations.gate import UnattendedGate
from .automations.service import Automations
from .automations.store import AutomationStore
from .automations.tool import automation_tool
from .api import HistoryItem, LedgerFilter, ReplySoFar, Spend, ToolInfo
from .leases.approver import Approver, Decision, LeaseRequest
from .accounting.budget import Budget
from .core.clock import Clock, SystemClock
from .core.errors import InvalidState, KernelError, ToolFailure, UnknownAgent
from .core.events import (
    AgentArchived, AgentInfo, AgentKilled, AgentSpawned, Event, EventBus, LedgerAppended,
    ToolCallFinished, UsageUpdated, UserMessage,
)
from .core.loop import KernelLoop
from .leases.book import LeaseBook
from .leases.pending import LeaseRequests, PendingApprover
from .leases.lease import Lease
from .core.messages import Message, user_text
from .sandbox.overlay import OverlayStatus
from .config.settings import Settings
from .accounting.spend import SpendToday
from .core.states import AgentState, Outcome
from .tools.descriptor import ToolLimits
from .tools.fs.stale import sweep_temp_files
from .workspace.snapshot import SnapshotIndexes
from .trust.taint import taint_from
from .tools.registry import ToolRegistry, builtin_registry
from .tools.shell import ShellTool
from .redaction import Redactor, SecretRegistry
from .config.schema import WEB_KEY_VARIABLES
from .tools.descriptor import ToolDescriptor
from .tools.web import web_fetch_tool, web_search_tool
from .workspace.root import Workspace
from .workspace.watch import OutsideWatchers

if TYPE_CHECKING:
    from .extensions.mcp_config import McpSecrets, McpServerConfig
    from .extensions.mcp_hub import McpHub
    from .extensions.mcp_status import McpReload, McpServerStatus
    from .extensions.mcp_watch import McpFile
    from .extensions.skill_info import SkillCatalog
    from .mail.tools import MailService
    from .tools.outward import UnknownIntent


def _redact_ledger(ledger: Ledger, secrets: SecretRegistry | None) -> SecretRegistry:
    """Secrets never reach the record: the ledger runs a redactor over every entry it writes
    (kernel/redaction), holding ``secrets`` and the environment's keys. One already there is kept."""
    current = ledger.redactor
    if isinstance(current, Redactor):
        held = current.held
    else:
        held = secrets if secrets is not None else SecretRegistry()
        ledger.redact_with(Redactor(held))
    if secrets is not None and secrets is not held:
        for label, value in secrets.items():
            held.add(value, label)
    held.add_environment(os.environ)
    return held


def web_tools(settings: Callable[[], Settings],
              keys: Callable[[str], str | None] | None,
              hop_refusal: Callable[[str, str], str | None] | None = None) -> tuple[ToolDescriptor, ...]:
    """web_fetch and web_search, reading Settings at each call (keys: environment only when not given;
    ``hop_refusal(agent_id, url)``: a loaded skill's domains, judged again at every redirect)."""
    def env_key(backend: str) -> str | None:
        variable = WEB_KEY_VARIABLES.get(backend)
        return os.environ.get(variable) if variable else None

    return web_fetch_tool(settings, hop_refusal=hop_refusal), web_search_tool(settings, keys or env_key)


class Kernel:
    """The facade (``kernel.api.KernelFacade``): what it gives out is plain data from ``kernel.api``."""

    def __init__(self, *, ledger: Ledger, settings: Settings, providers: ProviderFactory,
                 clock: Clock | None = None, approver: Approver | None = None,
                 tools: ToolRegistry | None = None, attached: bool = False, bus: EventBus | None = None,
                 snapshot_dir: Path | None = None, watch_workspaces: bool = False,
                 provider_problem: Callable[[str], str | None] | None = None, restore: bool = False,
                 secrets: SecretRegistry | None = None, web_keys: Callable[[str], str | None] | None = None,
                 mail: "MailService | None" = None) -> None:
        """``restore`` brings back the agents on the ledger's record (the kernel of a home does;
        a kernel sharing the file with another that runs must not); ``snapshot_dir`` keeps the shell tool's snapshot cache between runs; ``watch_workspaces``
        records edits by other programs in every workspace an agent works in (the desktop does);
        ``provider_problem`` says why a provider cannot be used yet (a missing key), or None;
        ``secrets`` holds the keys the ledger's redactor takes out of every entry (the environment's
        are added here); ``web_keys(backend)`` gives web_search its back-end's key."""
        self.secrets = _redact_ledger(ledger, secrets)
        clock = clock or SystemClock()
        bus = bus or EventBus()
        self._requests = LeaseRequests(bus)
        self._snapshots = SnapshotIndexes(ledger, max_blob=settings.blob_max_bytes, cache_dir=snapshot_dir)
        # the shell tool is kept: its stage folders close with the kernel, and it knows the overlay mode
        self._shell = ShellTool(lambda: self._services.settings, self._snapshots)
        if tools is None:
            tools = builtin_registry(extra=(self._shell.descriptor(),
                                            *web_tools(lambda: self._services.settings, web_keys,
                                                       lambda agent_id, url: self._services.extensions
                                                       .url_refusal(agent_id, url)),
                                            automation_tool(self)))
        if mail is not None:  # mail and calendar (issue 16): the tools, bound to this ledger and clock
            from .mail.tools import mail_tools  # lazy: only a home with an account pays for it

            mail.bind(ledger, clock)
            for descriptor in mail_tools(mail):
                tools.add(descriptor)
        self._mail = mail
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
        self._mcp: "McpHub | None" = None
        self._mcp_home: Path | None = None  # whose mcp.json mcp_reload reads
        self._mcp_file: "McpFile | None" = None  # that file and the version last read (extensions/mcp_watch.py)
        self._mcp_watch: "asyncio.Task[None] | None" = None
        self._mcp_reading = asyncio.Lock()  # one reading of mcp.json at a time: a later one never applies first
        self._spend = SpendToday(ledger, lambda: self._services.settings.prices, clock.now)
        if restore:
            self._restore()
        store = AutomationStore(ledger.path)  # its hash chain is checked at start too (automations/chain_start)
        self._automation_integrity = store.check_at_start(
            None if ledger.path in ("", ":memory:") else chain_start.head_path(ledger.path))
        self._automations = Automations(self, store, self.automation_gate, bus.publish)
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
        return [ToolInfo(d.name, d.scope, str(d.risk), d.trusted) for d in self._services.tools.descriptors()]

    async def sandbox_mode(self, workspace: str | None = None) -> OverlayStatus:
        """How shell commands in ``workspace`` (default: Settings' workspace) are captured on this machine:
        on an overlay, or by snapshots and why (probed once per filesystem, off the loop)."""
        root = Path(workspace or self._services.settings.workspace).expanduser()
        return await asyncio.to_thread(self._shell.overlay_status, root)

    # ---- outward calls (mail, calendar): exactly once -----------------------------

    async def resume_outward(self) -> int:
        """Verify the outward calls a previous kernel left without an outcome (call once at start):
        found → done, else ``unknown`` (never retried). How many were settled."""
        if self._mail is None:
            return 0
        return len(await self._mail.book.resume(self._mail.verifiers()))

    def unknown_outward(self) -> list[UnknownIntent]:
        """Outward calls that may or may not have happened, newest first: for the Inbox to show."""
        from .tools.outward import unknown_intents

        return unknown_intents(self._services.ledger, None if self._mail is None else self._mail.describe)

    def settle_outward(self, intent_seq: int, sent: bool) -> None:
        """The user's word on an outward call whose outcome is unknown: it was sent, or it was not
        (recorded as an outcome by ``user``; nothing is retried either way)."""
        from .tools.outward import user_says

        user_says(self._services.ledger, intent_seq, sent)

    async def recheck_outward(self, intent_seq: int) -> str:
        """Look on the server again for an unknown outward call: "done" (found, recorded) or "unknown"."""
        from .tools.outward import open_unknown

        intent = open_unknown(self._services.ledger, intent_seq)
        verify = None if self._mail is None else self._mail.verifiers().get(intent.tool)
        if self._mail is None or verify is None:
            raise KernelError(f"there is no account set up to check {intent.tool} with")
        try:
            found = await self._mail.book.recheck(intent, verify)
        except ToolFailure as exc:
            raise KernelError(f"could not check: {exc.message}") from None
        return "unknown" if found is None else found.status

    # ---- events ------------------------------------------------------------

    def subscribe(self, fn: Callable[[Event], None]) -> Callable[[], None]:
        return self._services.bus.subscribe(fn)

    def _announce(self, entry: Entry) -> None:
        """Every entry appended through this kernel's ledger becomes a LedgerAppended event,
        published on the kernel's own thread even when a worker thread appended it."""
        self._loop.call_soon(self._services.bus.publish, LedgerAppended(entry))
        if entry.kind == "request":
            self._loop.call_soon(self._spend.note, entry)

    # ---- processes ---------------------------------------------------------

    def spawn(self, name: str | None = None, *, provider: str | None = None, model: str | None = None,
              budget: int | None = None, workspace: str | None = None, unattended: bool = False) -> AgentInfo:
        """A new agent; ``unattended`` (an automation run) means nobody confirms anything: an outward call
        that needs a person is refused at once."""
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
        agent = AgentProcess(entry.actor, entry.name, provider, model, str(root), entry.ts, s, Budget(budget),
                             unattended=unattended)
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
        """The conversation as the model sees it; an agent out of the table (History) is read from the record."""
        if agent_id in self._agents:
            return self._agents[agent_id].conversation
        return conversation_of(self._services.ledger, self._record(agent_id).spawn)

    def reply_so_far(self, agent_id: str) -> ReplySoFar:
        """The conversation, the reply streaming now and the offset of the next text delta, at one moment."""
        if agent_id not in self._agents:
            return ReplySoFar(self.conversation(agent_id), "", 0)
        agent = self._agents[agent_id]
        return ReplySoFar(agent.conversation, "".join(agent.streaming), agent.streamed)

    def send(self, agent_id: str, text: str) -> None:
        """Add a user message and start the loop, which runs until idle, paused, failed or killed
        (``await wait(agent_id)`` for that: a task cannot cross the service's socket)."""
        agent = self._get(agent_id)
        if agent.killed:
            raise InvalidState(agent.id, agent.state, "send")
        if agent.busy:
            raise InvalidState(agent.id, agent.state, "send while it is working (stop or wait first)")
        if not text.strip():
            raise ValueError("the message is empty")
        record_user_turn(agent, text)
        agent.append(user_text(text))
        agent.request_reason = USER_TURN
        self._services.bus.publish(UserMessage(agent.id, text))
        self._start(agent)

    def pause(self, agent_id: str) -> None:
        """Pause at the next step (before the next model request)."""
        agent = self._get(agent_id)
        if agent.killed:
            raise InvalidState(agent.id, agent.state, "pause")
        if agent.busy:
            agent.pause_requested = True
        elif agent.state is not AgentState.PAUSED:
            agent.set_state(AgentState.PAUSED, "paused by the user")

    def resume(self, agent_id: str) -> None:
        """Continue a paused or interrupted agent (its state says whether there was anything to continue:
        running or idle); ``await wait(agent_id)`` waits for the work."""
        agent = self._get(agent_id)
        if not agent.state.resumable:
            raise InvalidState(agent.id, agent.state, "resume")
        agent.pause_requested = False
        if agent.needs_reply:
            agent.request_reason = RESUME
            self._start(agent)
            return
        agent.set_state(AgentState.IDLE)

    def raise_budget(self, agent_id: str, budget: int) -> AgentInfo:
        agent = self._get(agent_id)
        agent.budget = agent.budget.raised_to(budget)
        self._services.record(AgentBudget(actor=USER, subject=agent.id, budget=budget))
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

    # ---- durable agents ------------------------------------------------------

    def _restore(self) -> None:
        """Bring back every agent on the record that was not killed or archived (see agents.restore)."""
        s = self._services
        restored = summarise(s.ledger, s.clock.now())
        for rec in restored.agents.values():
            if not (rec.killed or rec.archived):
                self._adopt(rec)
        s.leases.adopt([lease for lease in restored.leases if lease.subject in self._agents])
        untrusted = s.ledger.page(kind=UntrustedSeen.KIND, limit=10**9)
        for agent_id, taint in taint_from(reversed(untrusted)).items():  # taint only grows, restarts included
            if agent_id in self._agents:
                self._agents[agent_id].taint = taint

    def _adopt(self, rec: AgentRecord) -> AgentProcess:
        if rec.dangling:  # calls that may have run: answered as interrupted, never run again
            self._services.ledger.append_many(rec.dangling)
        agent = process_from(rec, self._services)
        self._agents[agent.id] = agent
        return agent

    def _record(self, agent_id: str, tails: bool = False) -> AgentRecord:
        rec = summarise(self._services.ledger, self._services.clock.now(), tails=tails).agents.get(agent_id)
        if rec is None:
            raise UnknownAgent(agent_id)
        return rec

    def archive(self, agent_id: str) -> AgentInfo:
        """Move a finished agent out of the process table into History (recorded; never deleted)."""
        agent = self._get(agent_id)
        if agent.busy or agent.state.busy:
            raise InvalidState(agent.id, agent.state, "archive while it is working (stop or wait first)")
        # out of the table nobody sees its leases to revoke them, and continuing must ask afresh
        self._services.leases.revoke_all(agent.id, "the agent was archived")
        self._services.record(AgentArchive(actor=USER, subject=agent.id))
        del self._agents[agent.id]
        self._services.bus.publish(AgentArchived(agent.info()))
        return agent.info()

    def history(self, query: str = "") -> list[HistoryItem]:
        """Agents out of the process table (archived or killed), newest first; ``query`` searches
        their id, name, first prompt and model."""
        s = self._services
        restored = summarise(s.ledger, s.clock.now(), tails=False)
        items = [history_item(rec, s) for rec in restored.agents.values()
                 if rec.id not in self._agents and (rec.archived or rec.killed)]
        return sorted((i for i in items if i.matches(query)), key=lambda i: i.last_at, reverse=True)

    def revive(self, agent_id: str) -> AgentInfo:
        """Continue an archived agent: back in the process table with its whole conversation."""
        if agent_id in self._agents:
            return self._agents[agent_id].info()
        rec = self._record(agent_id)
        if rec.killed:
            raise InvalidState(agent_id, AgentState.KILLED, "continue")
        self._services.record(AgentArchive(actor=USER, subject=agent_id, archived=False))
        agent = self._adopt(self._record(agent_id, tails=True))
        # taint only grows: what it read before it was archived is on the record, as at a restart
        untrusted = self._services.ledger.page(kind=UntrustedSeen.KIND, actor=agent_id, limit=10**9)
        agent.taint = taint_from(reversed(untrusted)).get(agent_id)
        self._services.bus.publish(AgentSpawned(agent.info()))
        return agent.info()

    def spend_today(self) -> Spend:
        """Tokens and money of today's provider requests (every agent of this home)."""
        return self._spend.today()

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

    def automation_integrity(self) -> ChainIntact | ChainBroken:
        """What the check at start found of the automation records' own chain: intact (its rows), or
        the first broken table and row. The full check is ``agentdesk ledger verify``."""
        return self._automation_integrity

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

    # ---- extensions: MCP servers ----------------------------------------------

    async def start_mcp(self, servers: "Sequence[tuple[McpServerConfig, McpSecrets]]", *,
                        log_dir: Path | None = None, mode: str = "auto") -> dict[str, str]:
        """Connect these MCP servers and add their tools (``mcp__<server>__<tool>``) to the registry;
        returns why any server could not start (it is tried again when the kernel next starts)."""
        from .extensions.mcp_hub import McpHub

        if self._mcp is None:
            self._mcp = McpHub(self._services.tools, self._services.leases, log_dir=log_dir, mode=mode)
        for config, secrets in servers:
            self._hold_mcp_secrets(config.name, secrets)
            self._mcp.add_server(config, secrets)
        return await self._mcp.start()

    def use_mcp_home(self, root: Path) -> None:
        """The home whose mcp.json ``mcp_reload`` reads (set by ``extensions.setup.start_configured_mcp``)."""
        from .extensions.mcp_config import MCP_FILE
        from .extensions.mcp_watch import McpFile

        self._mcp_home = root
        if self._mcp_file is None or self._mcp_file.path != root / MCP_FILE:
            self._mcp_file = McpFile(root / MCP_FILE)

    def watch_mcp(self, report: "Callable[[McpReload], None]", interval_s: float | None = None) -> None:
        """Read mcp.json again whenever someone edits it by hand (the kernel service): a stat on the kernel's
        clock (extensions/mcp_watch.py); ``report`` hears what each such reading did. Ends with the kernel."""
        from .extensions.mcp_watch import MCP_WATCH_S, watch

        if self._mcp_file is None or self._mcp_watch is not None:
            return
        self._mcp_watch = asyncio.ensure_future(watch(lambda: self._mcp_file, self._services.clock,
                                                      lambda: self._reload_mcp(edited=True), report,
                                                      MCP_WATCH_S if interval_s is None else interval_s))

    async def mcp_reload(self) -> McpReload:
        """Read the home's mcp.json (and the servers' secrets) again and bring the running servers in step:
        new ones start, removed or switched-off ones stop (leases on their tools revoked), changed ones
        restart. Called by Settings and ``agentdesk mcp add|rm`` after they save."""
        return await self._reload_mcp(edited=False)

    async def _reload_mcp(self, edited: bool) -> McpReload:
        """``mcp_reload``; a broken entry (or a file that cannot be used at all) leaves its servers running as
        they were, with why in ``mcp_status``. Published as ``McpChanged`` (``edited``: a hand edit was seen)."""
        from .core.events import McpChanged
        from .extensions.mcp_status import McpReload

        root = self._mcp_home
        if root is None:
            return McpReload(problems=("this kernel was started without a home folder to read mcp.json from",))
        async with self._mcp_reading:
            done = await self._apply_mcp(root)
        self._services.bus.publish(McpChanged(done, edited))
        return done

    async def _apply_mcp(self, root: Path) -> McpReload:
        from .extensions.mcp_hub import McpHub
        from .extensions.mcp_status import McpReload
        from .extensions.setup import configured_mcp

        if self._mcp_file is not None:
            self._mcp_file.mark()
        found = configured_mcp(root)
        if self._mcp is None and found.servers:
            self._mcp = McpHub(self._services.tools, self._services.leases, log_dir=root / "logs")
        for config, secrets in found.servers:
            self._hold_mcp_secrets(config.name, secrets)
        if self._mcp is None:
            done = McpReload(problems=tuple(found.problems))
        elif found.unreadable is not None:
            self._mcp.hold(f"{found.unreadable}; running as before the edit")
            done = McpReload(problems=tuple(found.problems))
        else:
            reloaded = await self._mcp.reload(found.servers, keep=found.broken)
            done = McpReload(reloaded.started, reloaded.stopped, reloaded.restarted,
                             (*found.problems, *reloaded.problems))
        return done

    def _hold_mcp_secrets(self, server: str, secrets: "McpSecrets") -> None:
        for label, value in secrets.values():  # kept out of the ledger from now on
            self.secrets.add(value, f"MCP server {server}: {label}")

    async def stop_mcp(self) -> None:
        """Stop every MCP server (their tools stay listed; a call starts the server again)."""
        if self._mcp is not None:
            await self._mcp.aclose()

    def mcp_status(self) -> list[McpServerStatus]:
        """Every configured MCP server: connected or not, its tools, and the tools left out with why."""
        return [] if self._mcp is None else self._mcp.status()

    # ---- extensions: skills (Settings → Skills reads and pins them here: extensions/skill_info.py) ----

    async def skills(self, workspace: str | None = None) -> SkillCatalog:
        """The skills agents in ``workspace`` would be offered (the home's and the workspace's own), each
        enabled, changed since enabled, or off, and the folders skipped with why. Read off the loop."""
        from .extensions.skill_info import catalog_info, workspace_path

        where = workspace_path(workspace)
        return catalog_info(await asyncio.to_thread(self._services.extensions.catalog, where))

    async def set_skill_enabled(self, folder: str, sha256: str, enabled: bool, mine: bool = False,
                                workspace: str | None = None) -> SkillCatalog:
        """Enable the skill in ``folder`` at the hash the user was shown (refused when it changed since),
        or disable it; returns the catalogue after."""
        from .extensions.skill_info import set_enabled, workspace_path

        where = workspace_path(workspace)
        return await asyncio.to_thread(set_enabled, self._services.extensions, folder, sha256, enabled, mine, where)
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

    def _note_run_progress(self, event: Event) -> None:
        if isinstance(event, ToolCallFinished) and event.outcome is Outcome.OK:
            self.automation_gate.succeeded(event.agent_id)

    # ---- shutdown ----------------------------------------------------------

    async def interrupt_working(self, reason: str = KERNEL_STOPPED) -> list[AgentInfo]:
        """A clean shutdown (``agentdesk kernel --stop``, SIGTERM): every working agent stops
        ``interrupted`` instead of killed, its leases untouched, so it comes back as after a
        kill -9 and continues only when resumed; automation runs end ``interrupted``."""
        await self.automations.stop()
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
        if self._mcp_watch is not None:
            self._mcp_watch.cancel()
        if self._mcp is not None:
            await self._mcp.aclose()
        if self._watchers is not None:
            await self._watchers.close()
        self._snapshots.close()
        await asyncio.to_thread(self._shell.close)  # its stage folders (no command runs any more)
        self._unlisten_runs()


def _swallow_cancel(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved so asyncio does not warn; run_loop already marked the agent failed


__all__: Sequence[str] = ("Kernel", "PendingApprover")
