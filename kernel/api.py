"""The kernel's public vocabulary: the facade as a Protocol, and the plain data it speaks.

The desktop and the CLI import the kernel from here (or from ``kernel``,
which re-exports it), never from its rooms: an import-linter contract holds
the desktop to that. Everything a facade method takes or returns, and every
event, is a frozen dataclass of strings, numbers, tuples, mappings and other
values from this module (ledger entries included), so the same facade can
be served over a local socket to a desktop in another process. The helpers
re-exported at the end are pure functions the views use to put those values
into words.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping, Protocol, Sequence

from ledger.lazy import lazy_names

if TYPE_CHECKING:  # what mypy sees; at run time each name is imported on first use (``lazy_names``, below)
    from ledger import (
        KINDS, KERNEL, NOT_AGENTS, OUTSIDE, USER, AgentKill, AgentSpawn, Broken, Conflict, Denied, Entry, Expired, FileChange, Integrity, Intact,
        LeaseGrant, LeaseRevoke, LedgerError, Snapshot, ToolCall, ToolError, ToolResult, Undo, UndoReport,
    )
    from ledger import AgentArchive, AgentBudget, ModelRequest, UserTurn
    from ledger import Compaction, ContextUsed, SystemPrompt

    from .leases.approver import Decision, Denial, Grant, LeaseRequest
    from .automations import (
        Automation, Automations, AutomationView, InboxItem, PolicyItem, RunRecord, Schedule, ScheduleRefused,
        UnknownAutomation, in_words, local_time,
    )
    from .core.checking import ChainBroken, ChainIntact
    from .core.events import AutomationsChanged
    from .core.errors import ConfigError, InvalidState, KernelError, ProviderError, UnknownAgent
    from .core.states import AgentState, Outcome
    from .core.events import (
        AgentArchived, AgentInfo, AgentKilled, AgentSpawned, AgentStateChanged, Event, LeaseExpired, LeaseGranted, LeaseRevoked,
        LedgerAppended, LeaseRequested, LeaseRequestResolved, TextDelta, ToolCallFinished, ToolCallStarted,
        TurnFinished, TurnStarted, UsageUpdated, UserMessage,
    )
    from .core.events import AgentTainted, StartChecked
    from .core.checking import CHECKING_WORDS, Checking
    from .config.schema import check_settings
    from .trust.hook_config import hook_problem
    from ledger import POLICY, Confirmed, HookRun, UntrustedSeen
    from .leases.lease import Lease, describe_duration, describe_left
    from .accounting.prices import CACHE_WRITE, PRICE_FIELDS, PRICE_MAX, money
    from .core.messages import ImagePart, Message, TextPart, ToolResultPart, ToolUse
    from .images.thumbnail import Thumbnail
    from .context.state import is_state_block
    from .context.compaction import is_compacted_context
    from .tools.outward import UnknownIntent
    from .config.settings import BASE_URL_VARIABLES, KEY_VARIABLES, PROVIDERS, KeySource, Settings
    from .config.schema import WEB_DEFAULT_BASE_URLS, WEB_KEY_VARIABLES, WEB_SEARCH_BACKENDS, looks_secret
    from .tools.descriptor import CallPreview
    from .workspace.root import check_workspace
    from .core.words import plural, short_number
    from .core.summaries import HistoryItem, Spend

# Where each re-exported name lives. Imported on first use (PEP 562): a client of a kernel in
# another process (``agentdesk ask`` attached, the codec) pays only for the values it meets, not for
# the automations, mail and ledger store modules behind them (issue 11: ``import kernel.api`` was ~0.33 s).
_FROM: dict[str, tuple[str, ...]] = {
    "ledger": ("KINDS", "KERNEL", "NOT_AGENTS", "OUTSIDE", "USER", "POLICY", "AgentKill", "AgentSpawn", "Broken",
               "Conflict", "Denied", "Entry", "Expired", "FileChange", "Integrity", "Intact", "LeaseGrant",
               "LeaseRevoke", "LedgerError", "Snapshot", "ToolCall", "ToolError", "ToolResult", "Undo", "UndoReport",
               "AgentArchive", "AgentBudget", "ModelRequest", "UserTurn", "Confirmed", "HookRun", "UntrustedSeen"),
    "kernel.leases.approver": ("Decision", "Denial", "Grant", "LeaseRequest"),
    "ledger.entries": ("Compaction", "ContextUsed", "SystemPrompt",  # the context engine's entries (issue 24)
                       "ChannelMessage", "PairingGrant", "PairingRequest", "PairingRevoke"),  # channels (issue 27)
    "kernel.automations": ("Automation", "Automations", "AutomationView", "InboxItem", "PolicyItem", "RunRecord",
                           "Schedule", "ScheduleRefused", "UnknownAutomation", "in_words", "local_time"),
    "kernel.core.errors": ("ConfigError", "InvalidState", "KernelError", "ProviderError", "UnknownAgent"),
    "kernel.core.states": ("AgentState", "Outcome"),
    "kernel.core.events": ("AutomationsChanged", "AgentArchived",
                      "AgentInfo", "AgentKilled", "AgentSpawned", "AgentStateChanged", "Event", "LeaseExpired",
                      "LeaseGranted", "LeaseRevoked", "LedgerAppended", "LeaseRequested", "LeaseRequestResolved",
                      "TextDelta", "ToolCallFinished", "ToolCallStarted", "TurnFinished", "TurnStarted",
                      "UsageUpdated", "UserMessage", "AgentTainted", "McpChanged", "StartChecked"),
    "kernel.core.checking": ("Checking", "CHECKING_WORDS", "ChainBroken", "ChainIntact"),
    "kernel.config.schema": ("check_settings", "WEB_DEFAULT_BASE_URLS", "WEB_KEY_VARIABLES", "WEB_SEARCH_BACKENDS",
                               "looks_secret"),
    "kernel.trust.hook_config": ("hook_problem",),
    "kernel.leases.lease": ("Lease", "describe_duration", "describe_left"),
    "kernel.accounting.prices": ("CACHE_WRITE", "PRICE_FIELDS", "PRICE_MAX", "money"),
    "kernel.core.messages": ("ImagePart", "Message", "TextPart", "ToolResultPart", "ToolUse"),
    "kernel.images.thumbnail": ("Thumbnail",),  # a file's picture in the ledger's detail (issue 26)
    "kernel.context.state": ("is_state_block",),
    "kernel.context.compaction": ("is_compacted_context",),
    "kernel.config.settings": ("BASE_URL_VARIABLES", "KEY_VARIABLES", "PROVIDERS", "KeySource", "Settings"),
    "kernel.tools.descriptor": ("CallPreview",),
    "kernel.workspace.root": ("check_workspace",),
    "kernel.core.words": ("plural", "short_number"),
    "kernel.core.summaries": ("HistoryItem", "Spend"),
    "kernel.sandbox.overlay": ("OverlayStatus", "overlay_status"),
    "kernel.mail.accounts": ("TLS_MODES", "Account", "AccountStore", "Credentials"),
    "kernel.mail.connection": ("check_account",),
    "kernel.config.secrets": ("SecretStore",),
    "kernel.tools.outward": ("UnknownIntent",),
    "kernel.extensions.mcp_status": ("McpReload", "McpServerStatus"),
    "kernel.extensions.skill_info": ("SkillCatalog", "SkillInfo"),
    "kernel.routes.words": ("answered_by",),  # model routes (issue 25): who answered a reply, in words
    "kernel.channels.model": ("ChannelConfig", "ChannelPolicy", "ChannelView", "PairingView"),  # issue 27
}
_FROM["ledger"] += ("McpElicit",)  # MCP elicitation (issue 29): a server's question and its answer, recorded
_FROM["kernel.core.events"] += ("McpQuestionAsked", "McpQuestionClosed", "ToolProgress")  # issue 29
_FROM["kernel.extensions.mcp_elicit"] = ("ElicitAnswer", "ElicitField", "ElicitQuestion")  # issue 29
_FROM["kernel.extensions.mcp_offers"] = ("McpAttached", "McpPrompt", "McpPromptArgument", "McpPromptUsed",
                                         "McpResource")  # MCP resources and prompts (issue 29)
_FROM["ledger"] += ("RouteBreaker",)  # model routes (issue 25): a breaker's change travels over the socket too
__getattr__, __dir__ = lazy_names(globals(), _FROM)


@dataclass(frozen=True)
class LedgerFilter:
    """Which entries a ledger page holds: one actor, one kind, a path prefix (None: any)."""

    actor: str | None = None
    kind: str | None = None
    path: str | None = None  # an absolute path prefix

    def matches(self, entry: Entry) -> bool:
        if self.actor is not None and entry.actor != self.actor:
            return False
        if self.kind is not None and entry.kind != self.kind:
            return False
        if self.path is not None:
            path = getattr(entry, "path", None)
            return isinstance(path, str) and path.startswith(self.path)
        return True


@dataclass(frozen=True)
class ToolInfo:
    """A tool agents may call, the scope a lease for it must cover, its risk class (R0–R3) and
    whether its output is trusted."""

    name: str
    scope: str
    risk: str = "R0"
    trusted: bool = True
    always_confirm: bool = False  # every call is a one-off confirmation, whatever leases and policies say


@dataclass(frozen=True)
class ReplySoFar:
    """What a view opening on an agent shows: its conversation, the reply streaming now (not in the
    conversation until it ends) and ``streamed``, the offset of the next ``TextDelta`` (one snapshot, so a
    delta already in flight when it was taken is known by its offset and skipped)."""

    conversation: tuple[Message, ...]
    streaming: str
    streamed: int


class AgentDesk(Protocol):
    """The process table and the agents out of it (``kernel.agents``; served as ``agents.<method>``)."""

    def spawn(self, name: str | None = None, *, provider: str | None = None, model: str | None = None,
              budget: int | None = None, workspace: str | None = None, unattended: bool = False,
              fallbacks: tuple[str, ...] | None = None, any_vendor: bool = False) -> AgentInfo: ...
    def list(self) -> builtins.list[AgentInfo]: ...
    def get(self, agent_id: str) -> AgentInfo: ...
    def conversation(self, agent_id: str) -> tuple[Message, ...]: ...
    def reply_so_far(self, agent_id: str) -> ReplySoFar: ...  # what an Ask window opening mid-reply shows
    def send(self, agent_id: str, text: str,
             images: tuple[ImagePart, ...] | None = None) -> None: ...  # the work goes on: await wait(agent_id)
    async def attach_image(self, agent_id: str, data_b64: str, origin: str = "paste",
                           label: str = "") -> ImagePart: ...  # a picture for send(images=): fitted, kept
    def pause(self, agent_id: str) -> None: ...
    def resume(self, agent_id: str) -> None: ...
    def compact(self, agent_id: str, focus: str = "") -> None: ...  # summarize now: await wait(agent_id)
    def raise_budget(self, agent_id: str, budget: int) -> AgentInfo: ...
    def kill(self, agent_id: str, by: str = "user", reason: str = "killed by the user") -> AgentInfo: ...
    async def wait(self, agent_id: str) -> AgentInfo: ...
    # durable agents: archive, history, continue, spend
    def archive(self, agent_id: str) -> AgentInfo: ...
    def history(self, query: str = "") -> builtins.list[HistoryItem]: ...
    def revive(self, agent_id: str) -> AgentInfo: ...
    def spend_today(self) -> Spend: ...


class LeaseDesk(Protocol):
    """Live leases and the open lease requests (``kernel.leases``; served as ``leases.<method>``)."""

    def list(self, agent_id: str | None = None) -> builtins.list[Lease]: ...
    def grant(self, agent_id: str, scope: str, duration_s: float) -> Lease: ...  # as the user, unasked
    def revoke(self, lease_id: int) -> Lease | None: ...
    def pending(self) -> builtins.list[LeaseRequest]: ...  # asked and not yet resolved, oldest first
    def resolve(self, request_id: int, decision: Decision) -> bool: ...  # False: no longer open


class LedgerDesk(Protocol):
    """The ledger's window: pages, a file change's diff, undo, the check at start (``kernel.ledger``)."""

    def page(self, filters: LedgerFilter = LedgerFilter(), *, before: int | None = None,
             after: int | None = None, limit: int = 200) -> builtins.list[Entry]: ...
    def integrity(self) -> Integrity | Checking: ...
    def count(self) -> int: ...
    def last_seq(self) -> int: ...
    def caused_by(self, seq: int) -> builtins.list[Entry]: ...
    def undone_by(self, seqs: Sequence[int]) -> dict[int, int]: ...
    def diff(self, seq: int) -> str: ...
    async def picture(self, sha256: str) -> str | None: ...  # a stored picture, base64 (None: not a picture)
    async def thumbnail(self, sha256: str, edge: int = 256) -> Thumbnail | None: ...  # a blob's small picture
    def undo(self, after_seq: int, *, only_actor: str | None = None, dry_run: bool = False) -> UndoReport: ...


class ExtensionDesk(Protocol):
    """MCP servers and skills (kernel/extensions) as the kernel runs them (``kernel.extensions``)."""

    # the MCP servers the kernel runs, and reading mcp.json again after a change
    def mcp_status(self) -> builtins.list[McpServerStatus]: ...
    async def mcp_reload(self) -> McpReload: ...
    # a server's question for the user (MCP elicitation, issue 29): the ones waiting, and the user's answer
    def questions(self) -> builtins.list[ElicitQuestion]: ...
    def answer_question(self, question_id: int, action: str,
                        content: Mapping[str, str | int | float | bool | builtins.list[str] | None] | None = None
                        ) -> bool: ...
    # resources and prompts a person adds to an agent's next message (untrusted context; ``send`` takes them)
    async def mcp_resources(self) -> builtins.list[McpResource]: ...
    async def mcp_attach(self, agent_id: str, server: str, uri: str) -> McpAttached: ...
    async def mcp_prompts(self) -> builtins.list[McpPrompt]: ...
    async def mcp_complete(self, server: str, prompt: str, argument: str, value: str,
                           context: dict[str, str] | None = None) -> builtins.list[str]: ...
    async def mcp_use_prompt(self, agent_id: str, command: str) -> McpPromptUsed: ...  # "/server:prompt a=b"
    # what the kernel finds for a workspace, and enabling one at the hash the user was shown
    async def skills(self, workspace: str | None = None) -> SkillCatalog: ...
    async def set_skill_enabled(self, folder: str, sha256: str, enabled: bool, mine: bool = False,
                                workspace: str | None = None) -> SkillCatalog: ...


class OutwardDesk(Protocol):
    """Outward calls (mail, calendar) whose outcome is unknown (``kernel.outward``): the Inbox shows them; the
    user says whether one went out (recorded by ``user``, never retried) or has the kernel look again."""

    def unknown(self) -> builtins.list[UnknownIntent]: ...
    def settle(self, intent_seq: int, sent: bool) -> None: ...
    async def recheck(self, intent_seq: int) -> str: ...  # "done" (found, recorded) or "unknown"


class AutomationDesk(Protocol):
    """What the desktop and the CLI may ask of the automations desk (``kernel.automations.Automations`` is
    one); the kernel service serves it as ``automations.<method>``."""

    def check(self, automation: Automation) -> None: ...
    def add(self, automation: Automation, by: str = "user") -> Automation: ...
    def update(self, automation: Automation, by: str = "user") -> Automation: ...
    def pause(self, automation_id: str, by: str = "user") -> Automation: ...
    def resume(self, automation_id: str, by: str = "user") -> Automation: ...
    def delete(self, automation_id: str, by: str = "user") -> None: ...
    def get(self, automation_id: str) -> Automation: ...
    def list(self) -> builtins.list[AutomationView]: ...
    def runs(self, automation_id: str, limit: int = 100) -> builtins.list[RunRecord]: ...
    def history(self, automation_id: str) -> builtins.list[tuple[float, str, str]]: ...
    def run_now(self, automation_id: str) -> bool: ...  # False: another run already took that slot
    def inbox(self, *, open_only: bool = True) -> builtins.list[InboxItem]: ...
    def add_to_policy(self, item_id: int, duration_s: float) -> Automation: ...
    def dismiss(self, item_id: int) -> None: ...
    def integrity(self) -> ChainIntact | ChainBroken | Checking: ...  # the automation records' chain at start


class ChannelDesk(Protocol):
    """Chat channels and their pairing gate (``kernel.channels.hub.ChannelHub`` is one); served as
    ``channels.<method>``. A channel's token goes into the key store before ``add``, never through here."""

    def list(self) -> builtins.list[ChannelView]: ...
    async def add(self, config: ChannelConfig) -> ChannelView: ...  # saved, and its adapter (re)started
    async def remove(self, name: str) -> bool: ...
    async def test(self, name: str) -> str: ...  # who the token is on its service, in words
    def pending(self) -> builtins.list[PairingView]: ...  # codes given to unknown senders, not yet approved
    def paired(self) -> builtins.list[PairingView]: ...
    def approve(self, code: str) -> PairingView: ...
    def deny(self, code: str) -> PairingView: ...  # the code dropped; its sender silent until it would expire
    def revoke(self, channel: str, chat_kind: str, chat: str, sender: str) -> bool: ...


class KernelFacade(Protocol):
    """Everything the desktop and the CLI may ask of a kernel (``kernel.facade.Kernel`` is one): a few
    methods of its own and six desks, each served over the socket as ``<desk>.<method>``."""

    # time, settings, tools
    def now(self) -> float: ...
    @property
    def settings(self) -> Settings: ...
    def update_settings(self, settings: Settings) -> None: ...
    def provider_problem(self, provider: str) -> str | None: ...
    def hold_secret(self, value: str, label: str = "secret") -> bool: ...  # kept out of the ledger from now on
    def tools(self) -> list[ToolInfo]: ...
    # how shell commands in ``workspace`` (default: Settings' workspace) are captured: overlay or snapshots
    async def sandbox_mode(self, workspace: str | None = None) -> OverlayStatus: ...

    # events
    def subscribe(self, fn: Callable[[Event], None]) -> Callable[[], None]: ...

    # the desks
    @property
    def agents(self) -> AgentDesk: ...
    @property
    def leases(self) -> LeaseDesk: ...
    @property
    def ledger(self) -> LedgerDesk: ...
    @property
    def extensions(self) -> ExtensionDesk: ...
    @property
    def outward(self) -> OutwardDesk: ...
    @property
    def automations(self) -> AutomationDesk: ...  # automation_create is confirmed like any outward call
    @property
    def channels(self) -> ChannelDesk: ...  # chat channels and their pairing gate (issue 27)

    # shutdown
    async def aclose(self) -> None: ...


__all__ = [
    # the facade and its own values
    "KernelFacade", "AgentDesk", "LeaseDesk", "LedgerDesk", "ExtensionDesk", "OutwardDesk",
    "AutomationDesk", "LedgerFilter", "ToolInfo", "HistoryItem", "ReplySoFar", "Spend", "money", "CACHE_WRITE", "PRICE_FIELDS", "PRICE_MAX",
    # agents and events
    "AgentState", "Outcome",
    "AgentArchived", "AgentInfo", "AgentKilled", "AgentSpawned", "AgentStateChanged", "Event", "LeaseExpired", "LeaseGranted",
    "LeaseRevoked", "LedgerAppended", "LeaseRequested", "LeaseRequestResolved", "TextDelta", "ToolCallFinished",
    "ToolCallStarted", "TurnFinished", "TurnStarted", "UsageUpdated", "UserMessage",
    # leases and lease requests
    "CallPreview", "Decision", "Denial", "Grant", "Lease", "LeaseRequest",
    # the conversation
    "ImagePart", "Message", "TextPart", "ToolResultPart", "ToolUse", "is_state_block", "is_compacted_context",
    "Thumbnail",
    # ledger entries and reports
    "KINDS", "KERNEL", "NOT_AGENTS", "OUTSIDE", "USER", "AgentKill", "AgentSpawn", "Broken", "Conflict", "Denied", "Entry", "Expired", "FileChange", "Integrity",
    "Intact", "LeaseGrant", "LeaseRevoke", "Snapshot", "ToolCall", "ToolError", "ToolResult", "Undo", "UndoReport",
    "ChainBroken", "ChainIntact",
    # a check at start still running (the kernel serves first), and the event that says it answered
    "CHECKING_WORDS", "Checking", "StartChecked",
    "AgentArchive", "AgentBudget", "ModelRequest", "UserTurn", "Compaction", "ContextUsed", "SystemPrompt",
    # settings (what settings.json holds) and the provider names, key and base-URL variables
    "BASE_URL_VARIABLES", "KEY_VARIABLES", "PROVIDERS", "KeySource", "Settings",
    # the web tools' search back-ends, their default base URLs and key variables
    "WEB_DEFAULT_BASE_URLS", "WEB_KEY_VARIABLES", "WEB_SEARCH_BACKENDS",
    # errors (they carry fields)
    "ConfigError", "InvalidState", "KernelError", "LedgerError", "ProviderError", "UnknownAgent",
    # automations
    "Automation", "AutomationView", "Automations", "AutomationsChanged", "InboxItem", "PolicyItem", "RunRecord", "Schedule", "ScheduleRefused",
    "UnknownAutomation", "in_words", "local_time",
    # outward calls whose outcome is unknown (the Inbox)
    "UnknownIntent",
    # words for those values
    "check_workspace", "describe_duration", "describe_left", "looks_secret", "plural", "short_number",
    # trust: the taint event, the policy actor, its entries
    "AgentTainted", "POLICY", "Confirmed", "HookRun", "UntrustedSeen", "check_settings", "hook_problem",
]

# How shell commands are captured in a workspace (an overlay, or snapshots and why): for the desktop and
# `agentdesk status`. ``overlay_status(root)`` probes once per filesystem and blocks: call it off the UI loop.
if TYPE_CHECKING:  # imported on first use, as above
    from .sandbox.overlay import OverlayStatus, overlay_status  # noqa: E402

__all__ += ["OverlayStatus", "overlay_status"]
# Mail and calendar accounts (issue 16): what Settings → Accounts edits and checks.
if TYPE_CHECKING:  # imported on first use, as above
    from .mail.accounts import TLS_MODES, Account, AccountStore, Credentials  # noqa: E402
    from .mail.connection import check_account  # noqa: E402
    from .config.secrets import SecretStore  # noqa: E402

__all__ += ["TLS_MODES", "Account", "AccountStore", "Credentials", "SecretStore", "check_account"]
# MCP servers (issue 15): what the running kernel says of each, and what reading mcp.json again changed.
if TYPE_CHECKING:  # imported on first use, as above
    from .extensions.mcp_status import McpReload, McpServerStatus  # noqa: E402
    from .core.events import McpChanged  # noqa: E402

__all__ += ["McpReload", "McpServerStatus", "McpChanged"]
# Skills (Settings → Skills): the catalogue the kernel serves.
if TYPE_CHECKING:  # imported on first use, as above
    from .extensions.skill_info import SkillCatalog, SkillInfo  # noqa: E402

__all__ += ["SkillCatalog", "SkillInfo"]

if TYPE_CHECKING:
    from ledger import RouteBreaker  # noqa: E402 - model routes (issue 25): apart for clean merges
    from .routes.words import answered_by  # noqa: E402

__all__ += ["RouteBreaker", "answered_by"]

# Chat channels and their pairing gate (issue 27): the desk's values and the ledger entries they write.
if TYPE_CHECKING:  # imported on first use, as above
    from .channels.model import ChannelConfig, ChannelPolicy, ChannelView, PairingView  # noqa: E402
    from ledger import ChannelMessage, PairingGrant, PairingRequest, PairingRevoke  # noqa: E402

__all__ += ["ChannelDesk", "ChannelConfig", "ChannelPolicy", "ChannelView", "PairingView",
            "ChannelMessage", "PairingGrant", "PairingRequest", "PairingRevoke"]

# MCP as a whole client (issue 29): a server's question for the user, its answer on the record, progress.
if TYPE_CHECKING:  # imported on first use, as above
    from ledger import McpElicit  # noqa: E402
    from .core.events import McpQuestionAsked, McpQuestionClosed, ToolProgress  # noqa: E402
    from .extensions.mcp_elicit import ElicitAnswer, ElicitField, ElicitQuestion  # noqa: E402

__all__ += ["McpElicit", "McpQuestionAsked", "McpQuestionClosed", "ToolProgress", "ElicitAnswer", "ElicitField",
            "ElicitQuestion"]
# MCP resources and prompts a person adds to a message (issue 29): the picker's rows, the slash commands.
if TYPE_CHECKING:  # imported on first use, as above
    from .extensions.mcp_offers import (  # noqa: E402
        McpAttached, McpPrompt, McpPromptArgument, McpPromptUsed, McpResource,
    )

__all__ += ["McpAttached", "McpPrompt", "McpPromptArgument", "McpPromptUsed", "McpResource"]
