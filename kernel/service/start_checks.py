"""The kernel serves first and checks after (issue 28): the checks at start, run once the socket is served.

The ledger's hash chain and the automation records' chain are checked from
their recorded heads (``Ledger.check_at_start``, ``automations/chain_start``):
about 30 ms each when the heads were recorded, but a full walk of everything
on a home never verified (a first start after an upgrade): 3.5 s for 25,200
entries and 20,000 automation rows on this 2-core machine at load 9
(2026-12-03, ``benchmarks/start_bench.py``), all of it once spent before the
socket was served. Now the kernel serves, then runs both checks in a worker
thread, each on a connection of its own (WAL: its snapshot never blocks the
kernel's appends, and the kernel's connection lock is never held by it), and
hands the results to the desks (``Kernel.start_checked``), which publish
``StartChecked``. Until then ``integrity()`` says ``Checking``, and so do the
status line and ``agentdesk status`` ("checking the ledger…").

What is safe meanwhile, and so served at once: everything that reads
(agents, the ledger's pages, settings, status), and what a person does and
sees happen — spawning agents, sending to them, granting and revoking leases,
answering lease requests, killing, stopping the kernel. The record they
append to is the same chain; a break found in older entries is reported
exactly as it was when the check ran first. What waits for the result,
because it acts on what the record says with nobody watching or writes
files from it:
- the automation scheduler starts only after both checks answered (a broken
  automation chain still holds every automation, as before), and Run now is
  refused with a sentence until then;
- undo is refused with a sentence until the ledger's check answered (it
  writes files back from the record); a dry run, which only reads, is allowed.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING, Any

CHECKED = "agentdesk kernel: checked at start:"  # the line kernel.log gets when both checks answered

if TYPE_CHECKING:
    from ledger import Integrity

    from ..automations.chain import ChainBroken, ChainIntact


async def check_after_serving(kernel: Any, ledger_path: str) -> None:
    """Run both checks off the loop, hand their results to ``kernel``, then start the automation scheduler."""
    from ..core.daemon_thread import in_daemon_thread

    # a daemon thread: a kernel stopped during a full walk (a never-verified home) exits without waiting for it
    ledger_found, chain_found = await in_daemon_thread(lambda: run_checks(ledger_path), "checks-at-start")
    kernel.start_checked(ledger_found, chain_found)
    kernel.automations.start()  # scheduled runs fire from here on, with or without a desktop
    await asyncio.sleep(0)  # the scheduler's first look (its claims commit on this loop) comes before the line:
    # a client waiting for the line then finds the loop free, as one waiting for the readiness line did before
    print(f"{CHECKED} {in_words(ledger_found, chain_found)}", file=sys.stderr, flush=True)  # (kernel.log)


def in_words(ledger_found: Integrity, chain_found: ChainIntact | ChainBroken) -> str:
    """"the ledger is intact through #812; the automation records are intact (40 rows)", or where each broke."""
    from ledger import Intact

    from ..automations.chain import ChainIntact

    ledger = (f"the ledger is intact through #{ledger_found.upto}" if isinstance(ledger_found, Intact) else
              f"the ledger is BROKEN{'' if ledger_found.seq is None else f' at #{ledger_found.seq}'}: "
              f"{ledger_found.reason}")
    chain = (f"the automation records are intact ({chain_found.rows} rows)" if isinstance(chain_found, ChainIntact)
             else f"the automation records are BROKEN at {chain_found.table} row {chain_found.row}: "
                  f"{chain_found.reason}")
    return f"{ledger}; {chain}"


def run_checks(ledger_path: str) -> tuple[Integrity, ChainIntact | ChainBroken]:
    """Both checks at start, on connections of their own (call it in a worker thread). A check that cannot
    run at all (the file cannot be opened) is a broken result with the reason, never an exception."""
    return _ledger_check(ledger_path), _automation_check(ledger_path)


def _ledger_check(path: str) -> Integrity:
    from ledger import Broken, Ledger, LedgerError

    try:
        with Ledger(path) as own:
            return own.check_at_start()
    except (OSError, LedgerError) as exc:
        return Broken(None, "altered", f"the ledger could not be checked: {exc}")


def _automation_check(path: str) -> ChainIntact | ChainBroken:
    import sqlite3

    from ..automations import chain_start
    from ..automations.chain import ChainBroken
    from ..automations.store import AutomationStore

    try:
        store = AutomationStore(path)
    except (OSError, sqlite3.Error) as exc:
        return ChainBroken("automations", 0, f"the automation records could not be checked: {exc}")
    try:
        return store.check_at_start(chain_start.head_path(path))
    finally:
        store.close()
