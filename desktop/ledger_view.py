"""The ledger view: filters, the paged table, a detail pane and undo from any entry.

The table is a ``LedgerTableModel`` (pages of 200, fetched as the view
scrolls); filters re-query the ledger through the facade. Selecting an entry
fills the detail pane (``ledger_detail``). "Undo changes after this entry…"
first runs the undo as a dry run and shows what will happen to each file,
then applies it and shows what did; both dialogs are window-modal.

Paths elide in the middle (the file name and its folder's start both stay
readable) with the whole path in each row's tooltip; when the view is
narrow the cause and scope columns (also in the detail pane) are hidden
before the path gets too short to read, so no horizontal scroll bar appears.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPoint, Qt, QUrl, Signal
from PySide6.QtGui import QFontMetrics, QResizeEvent, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QMenu, QPushButton, QSplitter,
    QStackedWidget, QTableView, QTextBrowser, QVBoxLayout, QWidget,
)

from kernel.api import KINDS, NOT_AGENTS, Entry, FileChange, KernelFacade, LedgerFilter, Undo

from . import style
from .frame_clock import FrameClock
from .ledger_detail import JSON_LINK, Palette, entry_html
from .ledger_model import (
    COL_ACTOR, COL_CAUSE, COL_KIND, COL_SCOPE, COL_SEQ, COL_TIME, COL_WHAT, EntryRole, LedgerPager,
    LedgerTableModel,
)
from .picture_tiles import Thumbnails, resource

if TYPE_CHECKING:
    from .undo_dialogs import UndoConfirmDialog, UndoResultDialog  # imported on first use (issue 28)

EMPTY_TEXT = ("The ledger is empty.\n\nEvery tool call an agent makes, every file it changes, every lease "
              "you grant or revoke and every undo will appear here, newest first.")
NO_MATCH_TEXT = "No entries match these filters."
HIDE_FIRST = (COL_CAUSE, COL_SCOPE)  # in the detail pane too: hidden when the path would get too short
WHAT_MIN = 160


class LedgerTable(QTableView):
    """The entries table: fixed columns from the fonts, the path column takes the rest, nothing scrolls sideways."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setTabKeyNavigation(False)  # Tab leaves the table; arrows move inside it

    def column_widths(self) -> dict[int, int]:
        pad = 4 * style.SPACING
        plain = self.fontMetrics()
        mono = QFontMetrics(style.mono_font())
        return {COL_SEQ: plain.horizontalAdvance("000000") + pad, COL_TIME: plain.horizontalAdvance("00:00:00") + pad,
                COL_ACTOR: plain.horizontalAdvance("outside") + pad, COL_KIND: plain.horizontalAdvance("lease.revoke") + pad,
                COL_SCOPE: mono.horizontalAdvance("shell.exec") + pad, COL_CAUSE: plain.horizontalAdvance("lease #0000") + pad}

    def fit_columns(self) -> list[int]:
        widths = self.column_widths()
        room = self.viewport().width()
        hidden: list[int] = []
        for col in HIDE_FIRST:
            if sum(w for c, w in widths.items() if c not in hidden) + WHAT_MIN <= room:
                break
            hidden.append(col)
        for col, width in widths.items():
            self.setColumnHidden(col, col in hidden)
            self.horizontalHeader().resizeSection(col, width)
        return hidden

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.fit_columns()


class DetailBrowser(QTextBrowser):
    """The detail pane: HTML whose pictures (a picture file's before and after) come from ``Thumbnails``."""

    def __init__(self, thumbnails: Thumbnails) -> None:
        super().__init__()
        self._thumbnails = thumbnails

    def loadResource(self, kind: int, url: QUrl | str, /) -> object:  # noqa: N802 - Qt's name
        if kind == QTextDocument.ResourceType.ImageResource.value:
            name = url.toString() if isinstance(url, QUrl) else url
            found = resource(name, self._thumbnails, style.role_colour("muted"))
            if found is not None:
                return found
        return super().loadResource(kind, url)


def _is_agent(actor: str) -> bool:
    return actor not in NOT_AGENTS


class LedgerView(QWidget):
    undone = Signal(object)  # UndoReport, after an undo was applied

    def __init__(self, kernel: KernelFacade, default_root: str | None = None, parent: QWidget | None = None,
                 frames: FrameClock | None = None) -> None:
        super().__init__(parent)
        self.kernel = kernel
        pager = LedgerPager(kernel.ledger.page, kernel.ledger.undone_by, default_root=default_root,
                            last_seq=kernel.ledger.last_seq)
        for info in kernel.agents.list():
            pager.workspaces[info.id] = info.workspace
        self.model = LedgerTableModel(pager, self, frames=frames)
        self.last_dialog: UndoConfirmDialog | UndoResultDialog | None = None
        self._build()
        self.model.rowsInserted.connect(self._update_empty)
        self.model.modelReset.connect(self._update_empty)
        self._update_empty()

    # ---- layout ------------------------------------------------------------------

    def _build(self) -> None:
        self.actor = QLineEdit(placeholderText="actor (a7, user…)")
        self.kind = QComboBox()
        self.kind.addItem("all kinds", None)
        for kind in KINDS:
            self.kind.addItem(kind, kind)
        self.path = QLineEdit(placeholderText="path prefix")
        self.path.setFont(style.mono_font())
        for edit in (self.actor, self.path):
            edit.setClearButtonEnabled(True)
            edit.editingFinished.connect(self.apply_filters)
        self.kind.currentIndexChanged.connect(self.apply_filters)
        bar = QHBoxLayout()
        bar.setSpacing(style.SPACING * 2)
        bar.addWidget(self.actor, 2)
        bar.addWidget(self.kind, 2)
        bar.addWidget(self.path, 3)

        self.table = LedgerTable()
        self.table.setObjectName("ledger")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(style.METRICS.row - style.SPACING)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header.setSectionResizeMode(COL_WHAT, QHeaderView.ResizeMode.Stretch)
        self.table.fit_columns()
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _prev: self.show_detail(cur))
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._menu_at)

        self.empty = QLabel(EMPTY_TEXT)
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setForegroundRole(self.empty.foregroundRole())
        self.empty.setMargin(style.SPACING * 6)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.table)
        self.stack.addWidget(self.empty)

        self.thumbnails = Thumbnails(self.kernel.ledger, parent=self)
        self.thumbnails.arrived.connect(self._thumbnail_arrived)
        self.detail = DetailBrowser(self.thumbnails)
        self.detail.setOpenLinks(False)
        self.show_json = False  # the raw entry behind a toggle, kept from one entry to the next
        self.detail.anchorClicked.connect(self._on_link)
        self.detail.setPlaceholderText("Select an entry to see its input, result, diff and what it caused.")
        self.undo_after = QPushButton("Undo changes after this entry…")
        self.undo_mine = QPushButton("…made by this agent only")
        self.undo_after.clicked.connect(lambda: self.confirm_undo(self.current_entry()))
        self.undo_mine.clicked.connect(lambda: self.confirm_undo(self.current_entry(), only_agent=True))
        actions = QHBoxLayout()
        actions.setSpacing(style.SPACING * 2)
        actions.addWidget(self.undo_after)
        actions.addWidget(self.undo_mine)
        actions.addStretch(1)
        detail_box = QWidget()
        detail_layout = QVBoxLayout(detail_box)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.setSpacing(style.SPACING)
        detail_layout.addLayout(actions)
        detail_layout.addWidget(self.detail)

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.stack)
        split.addWidget(detail_box)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self.splitter = split
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(style.SPACING * 2)
        layout.addLayout(bar)
        layout.addWidget(split)
        self._enable_undo(None)

    def _update_empty(self, *args: object) -> None:
        empty = self.model.rowCount() == 0
        self.empty.setText(NO_MATCH_TEXT if self.model.pager.filters != LedgerFilter() else EMPTY_TEXT)
        self.stack.setCurrentWidget(self.empty if empty else self.table)

    # ---- feeding -------------------------------------------------------------------

    def set_default_root(self, root: str) -> None:
        """The workspace relative paths in the filter are read against (Settings may change it)."""
        self.model.pager.default_root = root

    def on_event(self, event: object) -> None:
        self.model.on_event(event)
        current = self.current_entry()
        if current is not None and isinstance(getattr(event, "entry", None), Undo):
            self.show_detail(self.table.currentIndex())

    def apply_filters(self) -> None:
        path = self.path.text().strip() or None
        if path and not os.path.isabs(path) and self.model.pager.default_root:
            path = os.path.join(self.model.pager.default_root, path)
        filters = LedgerFilter(actor=self.actor.text().strip() or None, kind=self.kind.currentData(), path=path)
        if filters != self.model.pager.filters:
            self.model.set_filters(filters)
            self.show_detail(QModelIndex())

    # ---- detail ----------------------------------------------------------------------

    def current_entry(self) -> Entry | None:
        index = self.table.currentIndex()
        return index.data(EntryRole) if index.isValid() else None

    def select_seq(self, seq: int) -> bool:
        self.model.flush()
        row = self.model.pager.row_of(seq)
        if row is None:
            return False
        self.table.selectRow(row)
        self.table.setCurrentIndex(self.model.index(row, 0))
        return True

    def palette_for_detail(self) -> Palette:
        return Palette(added=style.role_colour("added").name(), removed=style.role_colour("removed").name(),
                       hunk=style.role_colour("hunk").name(), error=style.role_colour("error").name(),
                       muted=style.role_colour("muted").name(), mono=style.mono_family())

    def show_detail(self, index: QModelIndex) -> None:
        entry = index.data(EntryRole) if index.isValid() else None
        self._enable_undo(entry)
        if entry is None:
            self.detail.clear()
            return
        self.thumbnails.waited.clear()
        html = entry_html(self.kernel.ledger, entry, self.model.pager.relative, self.palette_for_detail(),
                          self.model.pager.undone.get(entry.seq), show_json=self.show_json, pictures=self.thumbnails)
        self.detail.setHtml(html)

    def _thumbnail_arrived(self, sha: str) -> None:
        """A picture the detail pane waits for came: draw the entry again where the reader was."""
        if sha not in self.thumbnails.waited:
            return
        scroll = self.detail.verticalScrollBar().value()
        self.show_detail(self.table.currentIndex())
        self.detail.verticalScrollBar().setValue(scroll)

    def _on_link(self, url: QUrl) -> None:
        if url.toString() == JSON_LINK:
            self.toggle_json()

    def toggle_json(self) -> None:
        """Show or hide the selected entry's raw JSON."""
        self.show_json = not self.show_json
        self.show_detail(self.table.currentIndex())

    def _enable_undo(self, entry: Entry | None) -> None:
        self.undo_after.setEnabled(entry is not None)
        self.undo_mine.setEnabled(entry is not None and _is_agent(entry.actor))
        if entry is not None and _is_agent(entry.actor):
            self.undo_mine.setText(f"…made by {entry.actor} only")
        else:
            self.undo_mine.setText("…made by this agent only")

    def _menu_at(self, pos: QPoint) -> None:
        index = self.table.indexAt(pos)
        entry = index.data(EntryRole) if index.isValid() else None
        if entry is None:
            return
        menu = QMenu(self)
        menu.addAction("Undo changes after this entry…", lambda: self.confirm_undo(entry))
        mine = menu.addAction(f"…made by {entry.actor} only", lambda: self.confirm_undo(entry, only_agent=True))
        mine.setEnabled(_is_agent(entry.actor))
        if isinstance(entry, FileChange):
            path = entry.path

            def only_this_file() -> None:
                self.path.setText(path)
                self.apply_filters()

            menu.addAction("Show only this file", only_this_file)
        menu.popup(self.table.viewport().mapToGlobal(pos))

    # ---- undo ------------------------------------------------------------------------

    def _rel(self, path: str) -> str:
        return self.model.pager.relative(path)

    def confirm_undo(self, entry: Entry | None, only_agent: bool = False) -> UndoConfirmDialog | None:
        """Dry-run the undo and ask, listing each file and what will happen to it."""
        if entry is None:
            return None
        actor = entry.actor if only_agent and _is_agent(entry.actor) else None
        report = self.kernel.ledger.undo(entry.seq, only_actor=actor, dry_run=True)
        from .undo_dialogs import UndoConfirmDialog  # (on first use: not on the way to the first window)

        dialog = UndoConfirmDialog(self.window(), report, self._rel, who=actor, thumbnails=self.thumbnails)
        dialog.confirmed.connect(lambda: self.apply_undo(entry.seq, actor))
        dialog.open()
        self.last_dialog = dialog
        return dialog

    def apply_undo(self, seq: int, only_actor: str | None) -> UndoResultDialog:
        report = self.kernel.ledger.undo(seq, only_actor=only_actor)
        from .undo_dialogs import UndoResultDialog

        dialog = UndoResultDialog(self.window(), report, self._rel)
        dialog.open()
        self.last_dialog = dialog
        self.undone.emit(report)
        return dialog
