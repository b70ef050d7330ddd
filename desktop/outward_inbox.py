"""The Inbox's outward calls whose outcome is unknown: the message as asked, and the user's word on it.

A mail or an event the kernel cannot tell went out (the connection broke and
the server could not be asked, or the kernel stopped in between) is never
retried on its own. This panel lists them with the exact message or event,
and offers three things: "It was sent" and "It was not sent" (recorded as the
user's outcome, nothing retried) and "Check again" (the kernel looks on the
server; found → recorded as sent). It reloads when an outcome is recorded.
"""

from __future__ import annotations

import asyncio
import time

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QPlainTextEdit, QPushButton, QTableWidget,
    QTableWidgetItem, QVBoxLayout, QWidget,
)

from kernel.api import KernelError, KernelFacade, LedgerAppended, UnknownIntent

from . import style
from .sizing import show_rows
from .wording import plain_tip
from .widgets.dialog_parts import heading

_WHAT = {"mail_send": "mail", "calendar_create": "event", "channel_send_file": "file"}


class OutwardInbox(QWidget):
    """Unknown outward calls (``kernel.unknown_outward()``), with Sent / Not sent / Check again."""

    def __init__(self, kernel: KernelFacade, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kernel = kernel
        self.items: list[UnknownIntent] = []
        self.pending: asyncio.Future[object] | None = None
        self.detached = False  # the kernel went away (``detach``): nothing here can be recorded or checked
        self.title = heading()
        self.note = QLabel("The kernel could not tell whether these went out, and never retries them. Look in "
                           "the recipient's mailbox or the calendar, then say what you found.")
        self.note.setWordWrap(True)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["When", "Call", "Why unknown"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)  # Tab leaves the table; arrows move inside it
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.message = QPlainTextEdit()
        self.message.setReadOnly(True)
        self.message.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.message.setPlaceholderText("The message or event as it was asked for appears here.")
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.buttons: dict[str, QPushButton] = {}
        bar = QHBoxLayout()
        for key, text, slot in (("sent", "It was &sent", lambda: self.settle(True)),
                                ("not_sent", "It was n&ot sent", lambda: self.settle(False)),
                                ("recheck", "Check a&gain", self.recheck)):
            button = QPushButton(text)
            button.clicked.connect(slot)
            self.buttons[key] = button
            bar.addWidget(button)
        bar.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, style.SPACING, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.note)
        layout.addLayout(bar)
        show_rows(self.table, 3)
        self.message.setMinimumHeight(5 * self.message.fontMetrics().lineSpacing())
        layout.addWidget(self.table, 1)
        layout.addWidget(self.message, 1)
        layout.addWidget(self.status)
        self.table.itemSelectionChanged.connect(self._show)
        self.reload()

    def on_event(self, event: object) -> None:
        if isinstance(event, LedgerAppended) and event.entry.kind == "outcome":
            self.reload()

    def detach(self) -> None:
        """The kernel went away: the buttons go off and the status line says why, until ``reattach``."""
        self.detached = True
        self.status.setText("kernel detached \u2014 reconnecting: nothing can be recorded or checked until it "
                            "is back")
        self._show()

    def reattach(self) -> None:
        self.detached = False
        self.status.clear()
        self.reload()

    def reload(self) -> None:
        if self.detached:
            return
        try:
            self._reload()
        except KernelError:  # it went before the window heard (``detach`` comes with the events connection)
            self.detach()

    def _reload(self) -> None:
        keep = self.selected()
        self.items = self.kernel.outward.unknown()
        self.title.setText(f"Outward calls not known to have gone out ({len(self.items)})")
        self.table.setRowCount(len(self.items))
        for row, u in enumerate(self.items):
            call = f"#{u.intent_seq} {u.tool} by {u.actor}"
            when = time.strftime("%a %d %b %H:%M", time.localtime(u.ts))
            for col, text in enumerate((when, call, u.detail)):
                cell = QTableWidgetItem(text)
                cell.setToolTip(plain_tip(text) or "")  # the detail quotes a mail server's answer
                self.table.setItem(row, col, cell)
        seqs = [u.intent_seq for u in self.items]
        if seqs:
            self.table.selectRow(seqs.index(keep.intent_seq) if keep and keep.intent_seq in seqs else 0)
        self.setVisible(bool(self.items) or bool(self.status.text()))
        self._show()

    def selected(self) -> UnknownIntent | None:
        row = self.table.currentRow()
        return self.items[row] if 0 <= row < len(self.items) else None

    def _show(self) -> None:
        u = self.selected()
        self.message.setPlainText(u.shown if u is not None else "")
        for button in self.buttons.values():
            button.setEnabled(u is not None and self.pending is None and not self.detached)

    # ---- actions ------------------------------------------------------------------------

    def settle(self, sent: bool) -> None:
        """Record the user's word on the selected call (nothing is retried either way)."""
        u = self.selected()
        if u is None or self.detached:
            return
        what = _WHAT.get(u.tool, "call")
        try:
            self.kernel.outward.settle(u.intent_seq, sent)
        except KernelError as exc:
            self.status.setText(str(exc))
        else:
            self.status.setText(f"Recorded: the {what} #{u.intent_seq} was {'sent' if sent else 'not sent'}.")
        self.reload()

    def recheck(self) -> asyncio.Future[object] | None:
        """Have the kernel look on the server again (off the UI: the answer comes back here)."""
        u = self.selected()
        if u is None or self.pending is not None or self.detached:
            return None
        self.status.setText(f"Checking #{u.intent_seq} on the server…")
        self.pending = asyncio.ensure_future(self._recheck(u))
        self._show()
        return self.pending

    async def _recheck(self, u: UnknownIntent) -> object:
        what = _WHAT.get(u.tool, "call")
        try:
            status = await self.kernel.outward.recheck(u.intent_seq)
        except KernelError as exc:
            text = str(exc)
        else:
            text = (f"Found on the server: the {what} #{u.intent_seq} was sent (recorded)." if status == "done" else
                    f"Still not found on the server: the {what} #{u.intent_seq} stays here, not retried.")
        self.pending = None
        self.status.setText(text)
        self.reload()
        return text
