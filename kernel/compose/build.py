"""``build_kernel``: every part of a kernel, made and wired in one function (see ``kernel.compose``).

The parts refer to each other in a few places (the automation gate reports
refusals to the automations desk, which runs on the agents desk, whose
tools include ``automation_create`` on that desk): those are closures over
names bound further down, so each part is still made exactly once, here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..accounting.spend import SpendToday
from ..agents.services import ProviderFactory, Services
from ..automations import chain_start
from ..automations.gate import UnattendedGate
from ..automations.service import Automations
from ..automations.store import AutomationStore
from ..automations.tool import automation_tool
from ..channels.approver import ChannelApprover
from ..channels.hub import ChannelHub
from ..channels.store import ChannelStore
from ..config.schema import WEB_KEY_VARIABLES
from ..core.checking import Checking
from ..core.clock import Clock, SystemClock
from ..core.events import Event, EventBus, LedgerAppended, ToolCallFinished
from ..core.loop import KernelLoop
from ..core.states import Outcome
from ..extensions.context import Extensions
from ..extensions.mcp_questions import McpQuestions
from ..extensions.mcp_sampling import McpSampler
from ..desks import Agents, ExtensionsDesk, Leases, LedgerWindow, Outward, RunHost
from ..facade import Kernel
from ..leases.book import LeaseBook
from ..leases.pending import LeaseRequests
from ..redaction import Redactor, SecretRegistry
from ..tools.descriptor import ToolDescriptor, ToolLimits
from ..tools.registry import ToolRegistry, builtin_registry
from ..tools.shell import ShellTool
from ..tools.web import web_fetch_tool, web_search_tool
from ..workspace.snapshot import SnapshotIndexes
from ..workspace.watch import OutsideWatchers

if TYPE_CHECKING:
    from ledger import Entry, Ledger

    from ..config.settings import Settings
    from ..extensions.mcp_elicit import Elicitor
    from ..leases.approver import Approver
    from ..mail.tools import MailService


def build_kernel(*, ledger: Ledger, settings: Settings, providers: ProviderFactory,
                 clock: Clock | None = None, approver: Approver | None = None,
                 tools: ToolRegistry | None = None, attached: bool = False, bus: EventBus | None = None,
                 snapshot_dir: Path | None = None, watch_workspaces: bool = False,
                 provider_problem: Callable[[str], str | None] | None = None, restore: bool = False,
                 secrets: SecretRegistry | None = None, web_keys: Callable[[str], str | None] | None = None,
                 mail: MailService | None = None, check_later: bool = False,
                 channel_token: Callable[[str], str | None] | None = None,
                 elicitor: Elicitor | None = None) -> Kernel:
    """A kernel over ``ledger``. ``restore`` brings back the agents on the ledger's record (the kernel of a
    home does; a kernel sharing the file with another that runs must not); ``snapshot_dir`` keeps the shell
    tool's snapshot cache between runs; ``watch_workspaces`` records edits by other programs in every
    workspace an agent works in (the desktop does); ``provider_problem`` says why a provider cannot be used
    yet (a missing key), or None; ``secrets`` holds the keys the ledger's redactor takes out of every entry
    (the environment's are added here); ``web_keys(backend)`` gives web_search its back-end's key;
    ``tools``: exactly these tools (tests), instead of the built-in ones with shell, web and
    ``automation_create``; ``mail``: the mail and calendar tools of the home's accounts (issue 16);
    ``check_later``: the ledger's and the automation records' checks at start are left to the caller, who
    serves first and hands the results over (``Kernel.start_checked``; kernel/service/start_checks.py).
    ``channel_token(name)``: a channel's token from the key store (issue 27). ``elicitor``: who answers MCP
    servers' questions in this process (``agentdesk ask`` at a terminal) instead of a facade client (issue 29)."""
    held = redact_ledger(ledger, secrets)
    clock = clock or SystemClock()
    bus = bus or EventBus()
    requests = LeaseRequests(bus)
    snapshots = SnapshotIndexes(ledger, max_blob=settings.blob_max_bytes, cache_dir=snapshot_dir)
    services: Services  # bound below; the tools read it at each call
    automations: Automations  # bound below: the gate and the automation tool reach it at each call

    def current() -> Settings:
        return services.settings

    shell = ShellTool(current, snapshots)
    if tools is None:
        tools = builtin_registry(extra=(shell.descriptor(),
                                        *web_tools(current, web_keys,
                                                   lambda agent_id, url: extensions.url_refusal(agent_id, url)),
                                        automation_tool(lambda: automations)))
    if mail is not None:  # mail and calendar: the tools, bound to this ledger and clock
        from ..mail.tools import mail_tools  # lazy: only a home with an account pays for it

        mail.bind(ledger, clock)
        for descriptor in mail_tools(mail):
            tools.add(descriptor)
    # automation runs are unattended: their lease requests are refused at once (automations/gate.py)
    # channel agents: a chat sender never answers a lease request; nobody attached → refused (channels/approver.py)
    channel_approver = ChannelApprover(approver or requests.approver, lambda: services.attached)
    gate = UnattendedGate(channel_approver,
                          lambda automation, scope, detail, kind: automations.refused(automation, scope, detail,
                                                                                      kind))
    home = None if ledger.path in ("", ":memory:") else Path(ledger.path).parent  # its skills folder
    extensions = Extensions(home, ledger, tools)  # AGENTS.md and skills, seen by agents as a port
    services = Services(
        ledger=ledger, clock=clock, bus=bus, leases=LeaseBook(ledger, clock, bus.publish),
        approver=gate, tools=tools, providers=providers,
        settings=settings, extensions=extensions, attached=attached, limits=ToolLimits(blob_max_bytes=settings.blob_max_bytes),
    )
    loop = KernelLoop()
    spend = SpendToday(ledger, lambda: services.settings.prices, clock.now)

    def announce(entry: Entry) -> None:
        """Every entry appended through this kernel's ledger becomes a LedgerAppended event,
        published on the kernel's own thread even when a worker thread appended it."""
        loop.call_soon(bus.publish, LedgerAppended(entry))
        if entry.kind == "request":
            loop.call_soon(spend.note, entry)

    unlisten = ledger.listen(announce)
    watchers = OutsideWatchers(ledger, snapshots) if watch_workspaces else None
    agents = Agents(services, loop, spend, watchers)
    window = LedgerWindow(ledger, Checking("ledger", clock.now()) if check_later else ledger.check_at_start())
    if restore:
        agents.restore()
    store = AutomationStore(ledger.path)  # its hash chain is checked at start too (automations/chain_start)
    chain = Checking("automation records", clock.now()) if check_later else \
        store.check_at_start(None if ledger.path in ("", ":memory:") else chain_start.head_path(ledger.path))
    automations = Automations(RunHost(agents, services), store, gate, bus.publish, chain)
    channels = ChannelHub(RunHost(agents, services), ledger, ChannelStore(home), channel_approver,
                          channel_token or (lambda _name: None), held, tools)

    def run_progress(event: Event) -> None:
        if isinstance(event, ToolCallFinished) and event.outcome is Outcome.OK:
            gate.succeeded(event.agent_id)

    unsubscribe = bus.subscribe(run_progress)
    questions = McpQuestions(ledger, bus.publish, lambda agent_id: nobody_answers(services, agents, agent_id),
                             elicitor, lambda agent_id: agents.table[agent_id].name if agent_id in agents.table else agent_id)
    extension_desk = ExtensionsDesk(services, extensions, held, questions,
                                    McpSampler(lambda agent_id: agents.table.get(agent_id)),
                                    lambda agent_id: agents.table[agent_id].workspace
                                    if agent_id in agents.table else None)  # MCP elicitation, sampling, roots (29)
    extension_desk.agent_of, agents.turn_context = agents.process, extension_desk  # attached MCP resources, prompts
    return Kernel(services=services, agents=agents, leases=Leases(services.leases, requests), ledger=window,
                  extensions=extension_desk, outward=Outward(ledger, mail),
                  automations=automations, channels=channels, secrets=held, shell=shell, snapshots=snapshots, watchers=watchers,
                  provider_problem=provider_problem, on_close=(unlisten, unsubscribe))


def nobody_answers(services: Services, agents: Agents, agent_id: str) -> str | None:
    """Why nobody can answer an MCP server's question for ``agent_id`` (None: someone can)."""
    table = agents.table
    if agent_id not in table:
        return "no agent was calling the server"
    if table[agent_id].unattended or services.approver is not None and \
            getattr(services.approver, "unattended", lambda _a: False)(agent_id):
        return "the agent runs unattended"
    if not services.attached:
        return "no one is attached to answer it"
    return None


def redact_ledger(ledger: Ledger, secrets: SecretRegistry | None) -> SecretRegistry:
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
