"""History: agents out of the process table (archived, or killed in an earlier run), searchable.

Each row says who the agent was (name, first prompt), when it ran, its
tokens and what they cost (or "tokens only" when its model has no price).
"Open" shows its whole conversation read-only, rebuilt from the record;
"Continue" brings an archived agent back into the process table and opens
its Ask window. Everything comes from the facade (``history``,
``conversation``, ``revive``); typing in the search box filters as you type.
Keyboard: the search box has the focus, Down moves into the list, Enter
opens, Ctrl+Enter continues, Esc closes.
"""

from __future__ import annotations

import html
import time
from typing import Any, Callable

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPushButton, QTableView, QVBoxLayout, QWidget,
)

from kernel.api import AgentState, HistoryItem, KernelError, KernelFacade, money

from . import style
from .sizing import fit_to_screen
from .table_model import RowsTableModel
from .widgets.transcript import Transcript

COLUMNS = ("id", "name", "first prompt", "last active", "tokens", "cost", "model")
COL_ID, COL_NAME, COL_PROMPT, COL_DATE, COL_TOKENS, COL_COST, COL_MODEL = range(len(COLUMNS))
EMPTY_TEXT = ("Archived agents appear here (right-click a finished agent in the process table and choose "
              "Archive), and so do agents killed before the desktop last started.")
ItemRole = Qt.ItemDataRole.UserRole + 1


def when(ts: float) -> str:
    """A local date and time in words: "2026-12-01 14:05"."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def cost_words(item: HistoryItem) -> str:
    return money(item.cost) if item.cost is not None else "tokens only"


def model_words(item: HistoryItem) -> str:
    """Its model, and who else answered it when a fallback did (model routes): "claude-sonnet-4-5 · answered
    by openai:gpt-5"."""
    served = getattr(item, "served", ())  # a kernel from before routes sends none
    if not served:
        return item.model
    more = f" (+{len(served) - 1} more)" if len(served) > 1 else ""
    return f"{item.model} \u00b7 answered by {served[0]}{more}"


class HistoryModel(RowsTableModel):
    columns = COLUMNS

    def __init__(self) -> None:
        super().__init__()
        self.items: list[HistoryItem] = []

    def row_items(self) -> list[HistoryItem]:
        return self.items

    def set_items(self, items: list[HistoryItem]) -> None:
        self.beginResetModel()
        self.items = list(items)
        self.endResetModel()

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        item, col = self.items[index.row()], index.column()
        if role == ItemRole:
            return item
        if role == Qt.ItemDataRole.DisplayRole:
            return (item.id, item.name, " ".join(item.first_prompt.split()) or "(no message)", when(item.last_at),
                    style.short_tokens(item.input_tokens + item.output_tokens), cost_words(item),
                    model_words(item))[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            state = "archived" if item.archived else "killed"
            served = getattr(item, "served", ())
            answered = f"; answered by {', '.join(served)} too" if served else ""
            return (f"{item.name} ({item.id}), {state}; {item.provider} \u00b7 {item.model}{answered}\n"
                    f"started {when(item.started_at)}, last active {when(item.last_at)}\n"
                    f"{item.input_tokens:,} tokens in, {item.output_tokens:,} out; {cost_words(item)}\n"
                    f"{item.first_prompt[:500]}")
        if role == Qt.ItemDataRole.FontRole and col == COL_ID:
            return style.mono_font()
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (COL_TOKENS, COL_COST):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class HistoryTable(QTableView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.verticalHeader().hide()
        self.on_enter: Callable[[], object] = lambda: None
        self.on_ctrl_enter: Callable[[], object] = lambda: None

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
            (self.on_ctrl_enter if ctrl else self.on_enter)()
            return
        super().keyPressEvent(event)


class HistoryWindow(QWidget):
    """The History window (one per desktop; Ctrl+H brings it up)."""

    def __init__(self, kernel: KernelFacade, open_agent: Callable[[str], object], parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.kernel = kernel
        self._open_agent = open_agent
        self.viewers: dict[str, TranscriptViewer] = {}
        self.setWindowTitle("History \u00b7 Agentdesk")
        fit_to_screen(self, (860, 520))

        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search by name, first prompt, id or model")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.refresh)
        self.model = HistoryModel()
        self.table = HistoryTable(self)
        self.table.setModel(self.model)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COL_PROMPT, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(lambda _i: self.open_selected())
        self.table.on_enter = self.open_selected
        self.table.on_ctrl_enter = self.continue_selected
        self.table.selectionModel().selectionChanged.connect(lambda *_a: self._enable())
        self.empty = QLabel(EMPTY_TEXT, self)
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet(f"color: {style.role_colour('muted').name()};")
        self.open_button = QPushButton("Open (read-only)", self)
        self.open_button.setToolTip("Show the whole conversation (Enter)")
        self.open_button.clicked.connect(self.open_selected)
        self.continue_button = QPushButton("Continue", self)
        self.continue_button.setToolTip("Bring the agent back into the process table and open its window (Ctrl+Enter)")
        self.continue_button.clicked.connect(self.continue_selected)
        self.message = QLabel(self)
        self.message.setWordWrap(True)

        buttons = QHBoxLayout()
        buttons.addWidget(self.message, 1)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.continue_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(style.SPACING * 3, style.SPACING * 3, style.SPACING * 3, style.SPACING * 3)
        layout.setSpacing(style.SPACING * 2)
        layout.addWidget(self.search)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty)
        layout.addLayout(buttons)
        for keys, action in (("Ctrl+F", self.search.setFocus), ("Escape", self.close)):
            QShortcut(QKeySequence(keys), self, action, context=Qt.ShortcutContext.WindowShortcut)
        self.search.returnPressed.connect(self.table.setFocus)
        self.refresh()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if event.key() == Qt.Key.Key_Down and self.search.hasFocus():
            self.table.setFocus()
            if not self.table.currentIndex().isValid() and self.model.items:
                self.table.selectRow(0)
            return
        super().keyPressEvent(event)

    def refresh(self) -> None:
        """List what the search finds (again): the newest first."""
        items = self.kernel.agents.history(self.search.text())
        self.model.set_items(items)
        if items:
            self.table.selectRow(0)
        self.empty.setVisible(not items)
        self.empty.setText(EMPTY_TEXT if not self.search.text().strip() else
                           f"Nothing in History matches \u201c{self.search.text().strip()}\u201d.")
        self._enable()

    def selected(self) -> HistoryItem | None:
        index = self.table.currentIndex()
        return self.model.items[index.row()] if index.isValid() and index.row() < len(self.model.items) else None

    def _enable(self) -> None:
        item = self.selected()
        self.open_button.setEnabled(item is not None)
        self.continue_button.setEnabled(item is not None and not item.killed)
        self.continue_button.setToolTip("A killed agent cannot continue; start a new one (Ctrl+N)"
                                        if item is not None and item.killed else
                                        "Bring the agent back into the process table and open its window (Ctrl+Enter)")

    def open_selected(self) -> "TranscriptViewer | None":
        item = self.selected()
        if item is None:
            return None
        viewer = self.viewers.get(item.id)
        if viewer is None:
            viewer = TranscriptViewer(self.kernel, item, self)
            self.viewers[item.id] = viewer
            viewer.destroyed.connect(lambda *_a, aid=item.id: self.viewers.pop(aid, None))
        viewer.show()
        viewer.raise_()
        viewer.activateWindow()
        return viewer

    def continue_selected(self) -> None:
        item = self.selected()
        if item is None:
            return
        try:
            self.kernel.agents.revive(item.id)
        except KernelError as exc:
            self.message.setText(str(exc))
            return
        viewer = self.viewers.pop(item.id, None)
        if viewer is not None:
            viewer.close()
        self.message.setText(f"{item.name} ({item.id}) is back in the process table.")
        self.refresh()
        self._open_agent(item.id)


class TranscriptViewer(QWidget):
    """One past agent's conversation, read-only."""

    def __init__(self, kernel: KernelFacade, item: HistoryItem, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle(f"{item.name} \u00b7 {item.id} (read-only)")
        fit_to_screen(self, (780, 600))
        state = "archived" if item.archived else "killed"
        header = QLabel(f"<b>{html.escape(item.name)}</b> \u00b7 {item.id} \u00b7 {state} \u00b7 "
                        f"{html.escape(item.provider)} \u00b7 {html.escape(item.model)} \u00b7 "
                        f"{item.input_tokens + item.output_tokens:,} tokens \u00b7 {cost_words(item)}", self)
        header.setWordWrap(True)
        self.transcript = Transcript(item.name, lambda seqs: [], self)
        self.transcript.load_history(kernel.agents.conversation(item.id))
        self.transcript.settle_open_cards(AgentState.KILLED if item.killed else AgentState.IDLE)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(style.SPACING * 3, style.SPACING * 2, style.SPACING * 3, style.SPACING * 3)
        layout.addWidget(header)
        layout.addWidget(self.transcript, 1)
        QShortcut(QKeySequence("Escape"), self, self.close, context=Qt.ShortcutContext.WindowShortcut)

