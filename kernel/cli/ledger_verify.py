"""``agentdesk ledger verify``: check the whole hash chain and every blob.

Exit 0 when the ledger is intact ("ledger intact: N entries, M blobs", then
the head to keep elsewhere as proof), 6 when it is broken, naming the first
broken entry ("ledger broken at #N: reason"), 2 when the home has no ledger
yet, 1 when it cannot be opened at all. An intact check records its head
beside the database, so a later check (and the kernel's check at start)
notices entries that went missing from the end or a history rewritten with
fresh hashes. The automation tables in the same file have their own chain
(``kernel/automations/chain.py``), checked too: broken there is exit 6 as
well, naming the table and row.
"""

from __future__ import annotations

import sqlite3
import sys

from ledger import Broken, Integrity, LedgerError

from . import EXIT_USAGE
from ._home_ledger import EXIT_ERROR, ledger_path, open_existing, say_error

EXIT_BROKEN = 6


def run() -> int:
    try:
        ledger = open_existing()
        if ledger is None:
            print(f"agentdesk ledger verify: no ledger yet at {ledger_path()}", file=sys.stderr)
            return EXIT_USAGE
        with ledger:
            result = ledger.verify_chain()
    except (LedgerError, sqlite3.Error, OSError) as exc:
        say_error("ledger verify", exc)
        return EXIT_ERROR
    if isinstance(result, Broken):
        print(f"ledger broken{_where(result)}: {result.reason}")
        return EXIT_BROKEN
    print(f"ledger intact: {_count(result.entries, 'entry', 'entries')}, {_count(result.blobs, 'blob', 'blobs')}")
    if result.head is not None:
        print(f"head: #{result.head.seq} {result.head.hash}")
    return _automations()


def _automations() -> int:
    """The automation records' own chain, in the same file."""
    from ..automations.chain import ChainBroken, verify_file

    try:
        found = verify_file(str(ledger_path()))
    except sqlite3.Error as exc:
        say_error("ledger verify", exc)
        return EXIT_ERROR
    if isinstance(found, ChainBroken):
        print(f"automation records broken at {found.table} row {found.row}: {found.reason}")
        return EXIT_BROKEN
    if found.rows:
        print(f"automation records intact: {_count(found.rows, 'row', 'rows')}")
    return 0


def warning(found: Integrity) -> str | None:
    """The line other commands print when the quick check found the ledger broken."""
    if not isinstance(found, Broken):
        return None
    return f"warning: the ledger is broken{_where(found)}: {found.reason} (see 'agentdesk ledger verify')"


def _where(found: Broken) -> str:
    return "" if found.seq is None else f" at #{found.seq}"


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"
