"""The status line: how many agents run or wait, live leases, tokens today, ledger size and
whether the ledger checked out when the kernel started ("ledger verified", or in the error
colour "ledger broken at #N" with the reason in the tooltip), and with it the automation
records' own chain ("automation records broken", naming the table and row in the tooltip).

``StatusCounts`` is plain Python (no polling): agents and leases it reads
from the desktop's one model of them (``process_model.ProcessRows``, shared
with the process table), ledger figures it takes from ledger events; the
widgets only render its summary and refresh when either changes. The state words carry their colours,
and "waiting" is shown only when someone is waiting, in the loud colour.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from html import escape
from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from kernel.api import (
    AgentState,
    CHECKING_WORDS, Broken, ChainBroken, ChainIntact, Checking, Intact, Integrity, KernelError, LedgerAppended, OverlayStatus, Spend, money, plural,
)

from . import style
from .process_model import ProcessRows


@dataclass
class StatusCounts:
    ledger_entries: int = 0
    last_seq: int = 0           # seqs are dense, so a jump means entries appended unannounced
    attached: bool = True
    connecting: bool = False  # the window is up before the kernel answers (desktop/window_first.py)
    ledger_check: Integrity | Checking | None = None  # what the kernel's check at start found (or: still checking)
    automation_check: ChainIntact | ChainBroken | Checking | None = None  # and of the automation records' chain
    now: Callable[[], float] = time.time
    rows: ProcessRows | None = None  # agents and leases; its own empty rows when not given
    spend: Callable[[], Spend] | None = None  # today's requests (the kernel's ``spend_today``)
    last_spend: Spend | None = None  # what ``spend`` last said (shown while the kernel is away)
    sandbox: OverlayStatus | None = None  # how shell commands are captured (the kernel's ``sandbox_mode``)

    def __post_init__(self) -> None:
        if self.rows is None:
            self.rows = ProcessRows(self.now)

    @property
    def _rows(self) -> ProcessRows:
        assert self.rows is not None
        return self.rows

    def apply(self, event: object) -> bool:
        """Take one ledger event; True when the summary may have changed (agents and leases come
        from the rows, which announce their own changes)."""
        match event:
            case LedgerAppended(entry=e):
                if e.seq > self.last_seq:
                    self.ledger_entries += e.seq - self.last_seq if self.last_seq else 1
                    self.last_seq = e.seq
                return True
        return False

    def listen(self, fn: Callable[[], None]) -> Callable[[], None]:
        """Call ``fn`` whenever the agents or leases change; returns the function that stops it."""
        return self._rows.listen(lambda _change: fn())

    def in_state(self, state: AgentState) -> int:
        return self._rows.count_in(state)

    def live_leases(self) -> int:
        return self._rows.total_leases()

    def spend_today(self) -> Spend | None:
        """Today's spend from the kernel; while it is away (restarting), the last it said."""
        if self.spend is not None:
            try:
                self.last_spend = self.spend()
            except KernelError:  # detached: the status line keeps its last figures
                pass
        return self.last_spend

    def tokens_today(self, spend: Spend | None = None) -> int:
        if self.spend is not None:
            spend = spend or self.spend_today()
            return spend.tokens if spend is not None else 0
        start = time.mktime(time.localtime(self.now())[:3] + (0, 0, 0, 0, 0, -1))
        return sum(a.used for a in self._rows.agents if a.started_at >= start)

    def headline_html(self) -> str:
        """The toolbar's right side: "● 3 running  ◆ 1 waiting  2 leases"; while the kernel is away,
        "kernel detached" in the error colour (what ran before is not known to run now)."""
        running, waiting = AgentState.RUNNING, AgentState.WAITING
        if not self.attached:
            colour = style.role_colour("error").name()
            return f'<span style="color:{colour};font-weight:600;">\u26a0 kernel detached \u2014 reconnecting</span>'
        parts = [style.state_html(running).replace(style.state_text(running),
                                                   f"{style.MARKS[running]} {self.in_state(running)} running")]
        n_waiting = self.in_state(waiting)
        if n_waiting:
            parts.append(style.state_html(waiting).replace(style.state_text(waiting),
                                                           f"{style.MARKS[waiting]} {n_waiting} waiting"))
        parts.append(plural(self.live_leases(), "lease"))
        degraded = self.degraded_text()
        if degraded:
            colour = style.role_colour("waiting_bg").name()
            parts.append(f'<span style="background:{colour};">&nbsp;{escape(degraded)}&nbsp;</span>')
        return "&nbsp;&nbsp;".join(parts)

    def degraded_text(self) -> str:
        """ "degraded: anthropic overloaded ×3 — answering with openai:gpt-5" (and how many more), or ""."""
        agents = self._rows.degraded()
        if not agents:
            return ""
        more = f" (+{len(agents) - 1} more)" if len(agents) > 1 else ""
        return f"degraded: {agents[0].degraded}{more}"

    def footer(self) -> str:
        """The status bar: "tokens today 55k · ledger 812 entries · ledger verified · kernel attached"."""
        return " · ".join(self._footer_parts())

    def footer_html(self) -> str:
        """The footer with a broken ledger in the error colour."""
        parts = [escape(p) for p in self._footer_parts()]
        if isinstance(self.ledger_check, Broken) or isinstance(self.automation_check, ChainBroken):
            colour = style.role_colour("error").name()
            parts[2] = f'<span style="color:{colour};font-weight:600;">{parts[2]}</span>'
        return " · ".join(parts)

    def ledger_check_text(self) -> str:
        """The full result of the check at start, for the tooltip."""
        match self.ledger_check:
            case Broken(seq=seq, reason=reason):
                return f"The ledger is broken{'' if seq is None else f' at #{seq}'}: {reason}. " \
                       "Run 'agentdesk ledger verify' for the full check."
            case Intact() as intact:
                return f"The ledger's hash chain checked out up to #{intact.upto:,}."
            case Checking():
                return ("The kernel is checking the ledger's hash chain; it serves meanwhile. Undo and automations "
                        "wait for the result.")
            case _:
                return "The ledger was not checked."

    def tooltip(self) -> str:
        """The footer's tooltip: the ledger check, then how shell commands are captured."""
        text = self.ledger_check_text()
        if isinstance(self.automation_check, ChainBroken):
            found = self.automation_check
            text += (f"\nThe automation records are broken at {found.table} row {found.row}: {found.reason}. "
                     "Run 'agentdesk ledger verify' for the full check.")
        if self.sandbox is not None:
            text += f"\nSandbox: {self.sandbox.mode}. {self.sandbox.describe()[0].upper()}{self.sandbox.describe()[1:]}."
        return text

    def _footer_parts(self) -> list[str]:
        attached = "connecting to the kernel\u2026" if self.connecting else \
            "kernel attached" if self.attached else "kernel detached"
        match self.ledger_check:
            case Broken(seq=None):
                check = "\u26a0 ledger broken"
            case Broken(seq=seq):
                check = f"\u26a0 ledger broken at #{seq}"
            case Intact() if isinstance(self.automation_check, ChainBroken):
                check = "\u26a0 automation records broken"
            case Checking():
                check = CHECKING_WORDS
            case Intact() if isinstance(self.automation_check, Checking):
                check = CHECKING_WORDS
            case Intact():
                check = "ledger verified"
            case _:
                check = "ledger not checked"
        return [self._today(),
                f"ledger {plural(self.ledger_entries, 'entry')}", check, attached]


    def _today(self) -> str:
        """ "tokens today 55k", with what they cost when any had a price: "tokens today 55k ($0.42)"."""
        spend = self.spend_today()
        words = f"tokens today {style.short_tokens(self.tokens_today(spend))}"
        if spend is None or spend.tokens == spend.unpriced_tokens:
            return words  # no price known: tokens only
        more = f" + {style.short_tokens(spend.unpriced_tokens)} unpriced" if spend.unpriced_tokens else ""
        return f"{words} ({money(spend.cost)}{more})"


class StatusLabels:
    """Two labels kept in step with ``StatusCounts``: the headline and the footer."""

    def __init__(self, counts: StatusCounts, parent: QWidget | None = None) -> None:
        self.counts = counts
        self.headline = QLabel(parent)
        self.headline.setTextFormat(Qt.TextFormat.RichText)
        self.headline.setObjectName("status-headline")
        self.footer = QLabel(parent)
        self.footer.setTextFormat(Qt.TextFormat.RichText)
        self.footer.setObjectName("status-footer")
        self._stop_following = counts.listen(lambda: self.refresh())
        self.refresh()

    def on_event(self, event: object) -> None:
        if self.counts.apply(event):
            self.refresh()

    def refresh(self) -> None:
        self.headline.setText(self.counts.headline_html())
        self.footer.setText(self.counts.footer_html())
        self.footer.setToolTip(self.counts.tooltip())
