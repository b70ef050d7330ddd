"""``Checking``: a check at start that has not answered yet (issue 28: the kernel serves first, checks after).

The kernel serves its socket before the ledger's and the automation records'
chain checks finish (``kernel/service/start_checks.py``); until each answers,
``kernel.ledger.integrity()`` and ``kernel.automations.integrity()`` return
this value, the status line and ``agentdesk status`` say "checking the
ledger…", and a ``StartChecked`` event (kernel.core.events) says when the
result is in. It is plain frozen data, so it crosses the socket like the
results it stands in for.

The automation records' results, ``ChainIntact`` and ``ChainBroken``, live here too (re-exported by
``kernel.automations.chain``, which computes them): the status line imports them, and importing them from
the automations room cost the desktop's first window that room's whole package (0.4 s at load 16, issue 28).
"""

from __future__ import annotations

from dataclasses import dataclass

CHECKING_WORDS = "checking the ledger\u2026"


@dataclass(frozen=True)
class Checking:
    """The check of ``what`` ("ledger" or "automation records") started at ``since`` (epoch s) and runs."""

    what: str
    since: float


@dataclass(frozen=True)
class ChainBroken:
    """The first place the automation record no longer matches its chain."""

    table: str
    row: int
    reason: str


@dataclass(frozen=True)
class ChainIntact:
    rows: int
