"""The Inbox's pairing requests from chat channels, and the senders paired now: Approve, Deny, Revoke.

An unknown sender on a channel gets a pairing code and nothing else
(kernel/channels/gate.py); here the owner sees each code with its channel,
the sender, whether it came in a direct message or a group, and the time it
has left, and answers it with one button. Approve is the kernel's
``channels.approve`` (what ``agentdesk channel approve CODE`` calls: the
waiting message is answered); Deny drops the code (recorded, the sender hears
nothing more until it would have expired); Revoke ends a pairing in one
action. Everything goes through the facade, so it works the same attached to
a kernel process. ``PairedList`` is shared with Settings → Channels.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout,
    QWidget,
)

from kernel.api import KernelError, KernelFacade, LedgerAppended, PairingView

from . import style
from .sizing import show_rows
from .theme import mono_font
from .wording import plain_tip
from .widgets.dialog_parts import heading


def chat_words(p: PairingView) -> str:
    return "direct message" if p.chat_kind == "dm" else f"group {p.chat}"


def sender_words(p: PairingView) -> str:
    return f"{p.sender_name} ({p.sender})" if p.sender_name and p.sender_name != p.sender else p.sender


def time_left(seconds: float) -> str:
    s = int(seconds)
    if s <= 0:
        return "expired"
    if s >= 3600:
        minutes = (s % 3600) // 60
        return f"{s // 3600} h {minutes} min left" if minutes else f"{s // 3600} h left"
    return f"{max(1, (s + 59) // 60)} min left"


def make_table(headers: list[str]) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(headers)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setTabKeyNavigation(False)  # Tab leaves the table; arrows move inside it
    t.verticalHeader().setVisible(False)
    t.horizontalHeader().setStretchLastSection(True)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    return t


def _fill(table: QTableWidget, rows: list[tuple[str, ...]]) -> None:
    keep = table.currentRow()
    table.setRowCount(len(rows))
    for row, cells in enumerate(rows):
        for col, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setToolTip(plain_tip(text) or "")  # a sender's name is theirs: shown as text only
            table.setItem(row, col, item)
    if rows:
        table.selectRow(min(max(keep, 0), len(rows) - 1))


class PairedList(QWidget):
    """The senders paired now (``channels.paired()``), each revoked with one action."""

    def __init__(self, kernel: KernelFacade, said: Callable[[str], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kernel = kernel
        self._said = said
        self.items: list[PairingView] = []
        self.table = make_table(["Channel", "Sender", "Chat"])
        self.revoke_button = QPushButton("Revo&ke pairing")
        self.revoke_button.setToolTip("The sender meets the pairing gate again (recorded)")
        self.revoke_button.clicked.connect(self.revoke)
        self.title = heading("Paired senders")
        bar = QHBoxLayout()
        bar.addWidget(self.revoke_button)
        bar.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addLayout(bar)
        layout.addWidget(self.table, 1)
        show_rows(self.table, 2)
        self.table.itemSelectionChanged.connect(self._enable)

    def reload(self) -> None:
        self.items = self.kernel.channels.paired()
        self.title.setText(f"Paired senders ({len(self.items)})")
        _fill(self.table, [(p.channel, sender_words(p), chat_words(p)) for p in self.items])
        self._enable()

    def selected(self) -> PairingView | None:
        row = self.table.currentRow()
        return self.items[row] if 0 <= row < len(self.items) else None

    def _enable(self) -> None:
        self.revoke_button.setEnabled(self.selected() is not None)

    def revoke(self) -> None:
        p = self.selected()
        if p is None:
            return
        try:
            done = self.kernel.channels.revoke(p.channel, p.chat_kind, p.chat, p.sender)
        except KernelError as exc:
            self._said(str(exc))
        else:
            self._said(f"Revoked: {sender_words(p)} on {p.channel} ({chat_words(p)}) meets the pairing gate again."
                       if done else "That pairing had already ended.")
        self.reload()


class PairingInbox(QWidget):
    """Pairing codes waiting for the owner (``channels.pending()``) with Approve and Deny, and the paired senders."""

    def __init__(self, kernel: KernelFacade, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kernel = kernel
        self.items: list[PairingView] = []
        self.title = heading("Pairing requests from chat channels")
        note = QLabel("Someone wrote to one of your channels and was given only a pairing code. Approve lets "
                      "that sender, in that chat, reach an agent (as `agentdesk channel approve CODE` does); a "
                      "direct-message approval never covers a group.")
        note.setWordWrap(True)
        self.table = make_table(["Channel", "Sender", "Chat", "Code", "Expires"])
        # the code and its time left are what the owner compares: always whole; a long sender name gives way
        # (elided in the middle, whole in its tooltip) instead of pushing them out of sight
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # it quotes a sender's name: never read as markup
        self.buttons: dict[str, QPushButton] = {}
        bar = QHBoxLayout()
        for key, text, slot in (("approve", "Appro&ve", self.approve), ("deny", "Den&y", self.deny)):
            button = QPushButton(text)
            button.clicked.connect(slot)
            self.buttons[key] = button
            bar.addWidget(button)
        bar.addStretch(1)
        self.paired = PairedList(kernel, self.status.setText, self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, style.SPACING, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(note)
        layout.addLayout(bar)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.paired, 1)
        show_rows(self.table, 2)
        self.table.itemSelectionChanged.connect(self._enable)

    def on_event(self, event: object) -> None:
        if isinstance(event, LedgerAppended) and event.entry.kind.startswith("pairing."):
            self.reload()

    def reload(self) -> None:
        self.items = self.kernel.channels.pending()
        now = self.kernel.now()
        self.title.setText(f"Pairing requests from chat channels ({len(self.items)})")
        _fill(self.table, [(p.channel, sender_words(p), chat_words(p), p.code, time_left(p.expires - now))
                           for p in self.items])
        for row in range(self.table.rowCount()):  # a code is read out and compared: monospace, as code is
            item = self.table.item(row, 3)
            if item is not None:
                item.setFont(mono_font())
        self.paired.reload()
        self.setVisible(bool(self.items) or bool(self.paired.items) or bool(self.status.text()))
        self._enable()

    def selected(self) -> PairingView | None:
        row = self.table.currentRow()
        return self.items[row] if 0 <= row < len(self.items) else None

    def _enable(self) -> None:
        for button in self.buttons.values():
            button.setEnabled(self.selected() is not None)

    def approve(self) -> None:
        p = self.selected()
        if p is None:
            return
        try:
            done = self.kernel.channels.approve(p.code)
        except KernelError as exc:
            self.status.setText(str(exc))
        else:
            self.status.setText(f"Paired: {sender_words(done)} on {done.channel} ({chat_words(done)}); "
                                "the message that asked is being answered.")
        self.reload()

    def deny(self) -> None:
        p = self.selected()
        if p is None:
            return
        try:
            self.kernel.channels.deny(p.code)
        except KernelError as exc:
            self.status.setText(str(exc))
        else:
            self.status.setText(f"Denied: {sender_words(p)} on {p.channel} gets no answer and no new code "
                                "until this one would have expired.")
        self.reload()
