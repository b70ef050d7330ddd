"""``Checking``: a check at start that has not answered yet (issue 28: the kernel serves first, checks after).

The kernel serves its socket before the ledger's and the automation records'
chain checks finish (``kernel/service/start_checks.py``); until each answers,
``kernel.ledger.integrity()`` and ``kernel.automations.integrity()`` return
this value, the status line and ``agentdesk status`` say "checking the
ledger…", and a ``StartChecked`` event (kernel.core.events) says when the
result is in. It is plain frozen data, so it crosses the socket like the
results it stands in for.
"""

from __future__ import annotations

from dataclasses import dataclass

CHECKING_WORDS = "checking the ledger\u2026"


@dataclass(frozen=True)
class Checking:
    """The check of ``what`` ("ledger" or "automation records") started at ``since`` (epoch s) and runs."""

    what: str
    since: float
