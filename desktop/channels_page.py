"""Settings → Channels: the configured chat channels, who can reach an agent through each, and the pairings.

A channel is either paired-senders-only (the default: a stranger gets a code)
or OPEN to anyone, a policy the user chose by name (``agentdesk channel add
--open``). An open channel is shown in the error colour and in words ("OPEN
to anyone — no pairing"), never by colour alone. The paired senders are
listed with Revoke, one action, as in the Inbox (``pairing_inbox.PairedList``).
Channels are added with ``agentdesk channel add`` (their tokens go to the key
store from the terminal, never through a form that might keep them).
"""

from __future__ import annotations

from PySide6.QtGui import QBrush, QFont
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from kernel.api import ChannelView, KernelError, KernelFacade

from . import style
from .pairing_inbox import PairedList, make_table
from .sizing import fit_to_screen, show_rows

OPEN_WORDS = "⚠ OPEN to anyone — no pairing"
PAIRED_WORDS = "paired senders only (strangers get a code)"


def access_words(view: ChannelView) -> str:
    return OPEN_WORDS if view.config.open else PAIRED_WORDS


def state_words(view: ChannelView) -> str:
    if view.running:
        return "running" + (f" at {view.address}" if view.address else "")
    return f"stopped: {view.problem}" if view.problem else "stopped"


class ChannelsDialog(QDialog):
    def __init__(self, kernel: KernelFacade, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kernel = kernel
        self.setWindowTitle("Chat channels")
        self.views: list[ChannelView] = []
        note = QLabel("Add or remove a channel with `agentdesk channel add NAME --kind …` (its token is read from "
                      "the terminal and kept in the key store). A channel marked OPEN lets anyone who can write "
                      "to it reach an agent without pairing; their messages stay untrusted and can never answer "
                      "a lease request.")
        note.setWordWrap(True)
        self.table: QTableWidget = make_table(["Channel", "Kind", "Who can reach an agent", "State"])
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # it quotes a sender's name: never read as markup
        self.paired = PairedList(kernel, self.status.setText, self)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.paired, 1)
        layout.addWidget(self.status)
        layout.addWidget(close)
        show_rows(self.table, 3)
        fit_to_screen(self, (760, 480))
        self.reload()

    def reload(self) -> None:
        try:
            self.views = self.kernel.channels.list()
        except KernelError as exc:
            self.status.setText(str(exc))
            return
        self.table.setRowCount(len(self.views))
        red = style.role_colour("error", self.palette())
        for row, v in enumerate(self.views):
            for col, text in enumerate((v.config.name, v.config.kind, access_words(v), state_words(v))):
                item = QTableWidgetItem(text)
                if v.config.open and col in (0, 2):  # the colour and the words, never the colour alone
                    item.setForeground(QBrush(red))
                    font = QFont(item.font())
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(row, col, item)
        self.paired.reload()
