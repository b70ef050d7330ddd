"""Opening the home's ledger for the read-and-undo commands, and their error lines.

``ledger`` and ``undo`` never create a database: a home without one is
reported, not initialised. Every failure becomes one line on stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ledger import Ledger

from ..config.settings import SettingsStore, home

EXIT_ERROR = 1


def ledger_path() -> Path:
    return SettingsStore(home()).ledger_path


def open_existing() -> Ledger | None:
    """The home's ledger, or None when there is none yet (LedgerUnavailable when it is unreadable)."""
    path = ledger_path()
    if not path.exists():
        return None
    return Ledger(path, create=False)


def say_error(command: str, message: object) -> None:
    """One line on stderr, whatever the message holds."""
    text = " ".join(str(message).split()) or type(message).__name__
    print(f"agentdesk {command}: {text}", file=sys.stderr)


def absolute_prefix(raw: str) -> str:
    """A --path argument as the absolute prefix the ledger stores (a trailing slash is kept)."""
    p = Path(raw).expanduser()
    if not p.is_absolute():
        p = Path.cwd() / p
    resolved = str(p.parent.resolve() / p.name) if p.name else str(p.resolve())
    return resolved + "/" if raw.endswith("/") and not resolved.endswith("/") else resolved
