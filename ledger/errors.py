"""The ledger's one error tree.

Callers branch on the class and its fields, never on message text. Every
error carries a one-line message fit for a terminal.
"""

from __future__ import annotations


class LedgerError(Exception):
    """Base of every error the ledger raises."""


class LedgerUnavailable(LedgerError):
    """The database file cannot be opened or is not a ledger."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"cannot open ledger {path}: {reason}")
        self.path = path
        self.reason = reason


class UnknownSeq(LedgerError):
    """A seq that names no entry."""

    def __init__(self, seq: int) -> None:
        super().__init__(f"no ledger entry #{seq}")
        self.seq = seq


class UnknownBlob(LedgerError):
    """A content hash with no stored blob (never stored, or hash-only)."""

    def __init__(self, digest: str) -> None:
        super().__init__(f"no stored content for blob {digest[:12]}")
        self.digest = digest


class CorruptBlob(LedgerError):
    """A stored blob whose bytes no longer match its hash."""

    def __init__(self, digest: str) -> None:
        super().__init__(f"blob {digest[:12]} is corrupted")
        self.digest = digest


class NotAFileChange(LedgerError):
    """An operation that needs an fs.write entry got another kind."""

    def __init__(self, seq: int, kind: str) -> None:
        super().__init__(f"entry #{seq} is a {kind} entry, not a file change")
        self.seq = seq
        self.kind = kind


class UnknownKind(LedgerError):
    """A stored entry of a kind this Agentdesk does not know (written by a newer one)."""

    def __init__(self, seq: int, kind: str) -> None:
        super().__init__(f"entry #{seq} is of unknown kind {kind!r} (written by a newer Agentdesk?)")
        self.seq = seq
        self.kind = kind


class NewerVersion(LedgerError):
    """A stored entry whose shape is newer than this Agentdesk's class for its kind knows how to read."""

    def __init__(self, seq: int, kind: str, version: int, known: int) -> None:
        super().__init__(f"entry #{seq} is a {kind} entry of version {version}; this Agentdesk reads up to "
                         f"version {known} (written by a newer Agentdesk?)")
        self.seq = seq
        self.kind = kind
        self.version = version
        self.known = known


class SecretInName(LedgerError):
    """An entry whose name column (a path, a tool, a scope) holds a secret: names are kept exact
    (undo needs the path), so the entry is refused rather than written with the secret."""

    def __init__(self, kind: str, field: str) -> None:
        super().__init__(f"refused to record this {kind}: its {field} contains a secret (a held key or a token), "
                         "and the record keeps names exactly; use a name without it")
        self.kind = kind
        self.field = field
