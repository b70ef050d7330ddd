"""Agentdesk's ledger: an append-only SQLite record of every action, with undo.

Standard library only; imports neither the kernel nor the desktop.
"""

from .actors import KERNEL, NOT_AGENTS, OUTSIDE, USER
from .entries import (
    KINDS, AgentKill, AgentSpawn, Denied, Entry, Expired, FileChange, LeaseGrant, LeaseRevoke,
    Snapshot, ToolCall, ToolError, ToolResult, Undo, iso_utc,
)
from .entries import Intent, Outcome
from .errors import (
    CorruptBlob, LedgerError, LedgerUnavailable, NewerVersion, NotAFileChange, UnknownBlob, UnknownKind,
    UnknownSeq,
)
from .integrity import Broken, Head, Integrity, Intact
from .store import Ledger
from .undo import Conflict, Step, UndoReport

__all__ = [
    "KERNEL", "KINDS", "NOT_AGENTS", "OUTSIDE", "USER",
    "AgentKill", "AgentSpawn", "Broken", "Conflict", "CorruptBlob", "Denied", "Entry", "Expired",
    "FileChange", "Head", "Integrity", "Intact", "LeaseGrant", "LeaseRevoke", "Ledger", "LedgerError", "LedgerUnavailable",
    "NewerVersion", "NotAFileChange", "Snapshot", "Step", "ToolCall", "ToolError", "ToolResult", "Undo", "UndoReport",
    "UnknownBlob", "UnknownKind", "UnknownSeq", "iso_utc",
    "Intent", "Outcome",
]
