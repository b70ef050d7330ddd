"""Agentdesk's ledger: an append-only SQLite record of every action, with undo.

Standard library only; imports neither the kernel nor the desktop.
"""

from typing import TYPE_CHECKING

from .lazy import lazy_names

if TYPE_CHECKING:  # what mypy sees; at run time each name is imported on first use (``lazy_names``, below)
    from .actors import KERNEL, NOT_AGENTS, OUTSIDE, POLICY, USER
    from .entries import (
        KINDS, AgentKill, AgentSpawn, Denied, Entry, Expired, FileChange, LeaseGrant, LeaseRevoke,
        Snapshot, ToolCall, ToolError, ToolResult, Undo, iso_utc,
    )
    from .entries import Confirmed, HookRun, UntrustedSeen
    from .entries import AgentArchive, AgentBudget, ModelRequest, UserTurn
    from .entries import Intent, Outcome
    from .errors import (
        CorruptBlob, LedgerError, LedgerUnavailable, NewerVersion, NotAFileChange, SecretInName, UnknownBlob,
        UnknownKind, UnknownSeq,
    )
    from .integrity import Broken, Head, Integrity, Intact
    from .store import Ledger
    from .undo import Conflict, Step, UndoReport

# Where each name lives, imported on first use (PEP 562): a reader of entries (the kernel service's
# clients) does not pay for the SQLite store, the integrity check and undo (issue 11).
_FROM: dict[str, tuple[str, ...]] = {
    "ledger.actors": ("KERNEL", "NOT_AGENTS", "OUTSIDE", "POLICY", "USER"),
    "ledger.entries": ("KINDS", "AgentKill", "AgentSpawn", "Denied", "Entry", "Expired", "FileChange", "LeaseGrant",
                       "LeaseRevoke", "Snapshot", "ToolCall", "ToolError", "ToolResult", "Undo", "iso_utc",
                       "Confirmed", "HookRun", "UntrustedSeen", "AgentArchive", "AgentBudget", "ModelRequest",
                       "UserTurn", "Intent", "Outcome", "ContextUsed", "RouteBreaker", "SystemPrompt", "Compaction",
                       "ChannelMessage", "PairingGrant", "PairingRequest", "PairingRevoke",  # channels (issue 27)
                       "McpElicit"),  # MCP elicitation (issue 29)
    "ledger.errors": ("CorruptBlob", "LedgerError", "LedgerUnavailable", "NewerVersion", "NotAFileChange",
                      "SecretInName", "UnknownBlob", "UnknownKind", "UnknownSeq"),
    "ledger.integrity": ("Broken", "Head", "Integrity", "Intact"),
    "ledger.store": ("Ledger",),
    "ledger.undo": ("Conflict", "Step", "UndoReport"),
}
__getattr__, __dir__ = lazy_names(globals(), _FROM)

__all__ = [
    "KERNEL", "KINDS", "NOT_AGENTS", "OUTSIDE", "POLICY", "USER",
    "AgentKill", "AgentSpawn", "Broken", "Conflict", "CorruptBlob", "Denied", "Entry", "Expired",
    "FileChange", "Head", "Integrity", "Intact", "LeaseGrant", "LeaseRevoke", "Ledger", "LedgerError", "LedgerUnavailable",
    "NewerVersion", "NotAFileChange", "SecretInName", "Snapshot", "Step", "ToolCall", "ToolError", "ToolResult", "Undo", "UndoReport",
    "UnknownBlob", "UnknownKind", "UnknownSeq", "iso_utc",
    "Confirmed", "HookRun", "UntrustedSeen",
    "AgentArchive", "AgentBudget", "ModelRequest", "UserTurn",
    "Intent", "Outcome",
]

if TYPE_CHECKING:
    from .entries import ContextUsed  # noqa: E402 - extensions (issue 15): kept apart from the list above for clean merges
    from .entries import Compaction, SystemPrompt  # noqa: E402 - the context engine (issue 24)

__all__ += ["ContextUsed"]

if TYPE_CHECKING:
    from .entries import RouteBreaker  # noqa: E402 - model routes (issue 25): apart for clean merges

__all__ += ["RouteBreaker"]
__all__ += ["Compaction", "SystemPrompt"]

if TYPE_CHECKING:  # channels (issue 27): kept apart for clean merges
    from .entries import ChannelMessage, PairingGrant, PairingRequest, PairingRevoke  # noqa: E402
__all__ += ["ChannelMessage", "PairingGrant", "PairingRequest", "PairingRevoke"]

if TYPE_CHECKING:  # MCP elicitation (issue 29): apart for clean merges
    from .entries import McpElicit  # noqa: E402
__all__ += ["McpElicit"]
