"""The process table's view: token bars, a Kill button on every row, a context menu.

Actions go straight to the kernel facade (kill, pause, resume, raise a
budget, revoke a lease); the table itself changes only when the resulting
events arrive. Double-click (or Enter) opens the agent's window.

From the keyboard: the Menu key (or Shift+F10) opens the selected row's menu,
under that row (a keyboard menu's position is in the view's coordinates, not
the viewport's, so the row is the current one, never looked up from it), and
Delete asks to kill the selected agent, naming it; the menu's Kill asks the
same. The painted Kill buttons are for the mouse and kill at once.

The state and the Kill button stay visible at any width, with no horizontal
scroll bar: the name gives way first (it elides), then, as the table gets
narrower, the started, id, tokens and leases columns are hidden in that
order (``fit_columns``). The leases column shows each agent's live lease
(scope and time left) and is as wide as its longest text; at the main
window's 1024-pixel width it and every column but "started" fit.
"""

from __future__ import annotations

from typing import Any, Callable, cast

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QRect, Qt, Signal
from PySide6.QtGui import (
    QAction, QContextMenuEvent, QFont, QFontMetrics, QKeyEvent, QMouseEvent, QPaintEvent, QPainter, QPalette,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView, QApplication, QHeaderView, QInputDialog, QMenu, QMessageBox, QStyle, QStyledItemDelegate,
    QStyleOptionButton, QStyleOptionProgressBar, QStyleOptionViewItem, QTableView, QWidget,
)

from kernel.api import AgentInfo, KernelError, KernelFacade, describe_left

from . import style
from .budget_dialog import open_raise_budget
from .confirm_stop import confirm_stop
from .process_model import (
    COL_ID, COL_KILL, COL_LEASES, COL_NAME, COL_STARTED, COL_STATE, COL_TOKENS, COLUMNS, AgentRole, FractionRole,
    ModelRole,
    ProcessTableModel,
)

Index = QModelIndex | QPersistentModelIndex
HIDE_FIRST = (COL_STARTED, COL_ID, COL_TOKENS, COL_LEASES)  # when narrow, hidden in this order
NAME_MIN = 64  # the name elides down to this before any column is hidden
BAR_WIDTH = 40  # the token bar beside "41.2k / 200k"


class TokenBarDelegate(QStyledItemDelegate):
    """Tokens used as a thin bar with "41k / 200k" beside it."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        self.initStyleOption(option, index)
        widget = option.widget
        app_style = widget.style() if widget else QApplication.style()
        app_style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, widget)
        rect = option.rect.adjusted(style.SPACING, style.SPACING * 2, -style.SPACING, -style.SPACING * 2)
        bar_w = min(BAR_WIDTH, rect.width() // 2)
        bar = QStyleOptionProgressBar()
        bar.rect = QRect(rect.left(), rect.top(), bar_w, rect.height())
        bar.minimum, bar.maximum = 0, 1000
        bar.progress = int(1000 * float(index.data(FractionRole) or 0.0))
        bar.textVisible = False
        bar.state = QStyle.StateFlag.State_Enabled | QStyle.StateFlag.State_Horizontal
        app_style.drawControl(QStyle.ControlElement.CE_ProgressBar, bar, painter, widget)
        text_rect = option.rect.adjusted(bar_w + 2 * style.SPACING, 0, -style.SPACING, 0)
        painter.save()
        painter.setPen(option.palette.color(option.palette.ColorRole.Text))
        painter.drawText(text_rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight),
                         index.data(Qt.ItemDataRole.DisplayRole) or "")
        painter.restore()


class NameDelegate(QStyledItemDelegate):
    """The agent's name, then its provider and model in the muted colour; what does not fit elides."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        self.initStyleOption(option, index)
        name, model = option.text, index.data(ModelRole) or ""
        option.text = ""
        widget = option.widget
        (widget.style() if widget else QApplication.style()).drawControl(
            QStyle.ControlElement.CE_ItemViewItem, option, painter, widget)
        rect = option.rect.adjusted(style.SPACING, 0, -style.SPACING, 0)
        metrics = option.fontMetrics
        painter.save()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        text_role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        painter.setPen(option.palette.color(text_role))
        shown = metrics.elidedText(name, Qt.TextElideMode.ElideRight, rect.width())
        align = int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft)
        painter.drawText(rect, align, shown)
        rest = rect.adjusted(metrics.horizontalAdvance(shown + "  "), 0, 0, 0)
        if model and rest.width() > metrics.horizontalAdvance("\u2026"):
            if not selected:
                painter.setPen(style.role_colour("muted"))
            painter.drawText(rest, align, metrics.elidedText(model, Qt.TextElideMode.ElideRight, rest.width()))
        painter.restore()


class KillButtonDelegate(QStyledItemDelegate):
    """A Kill push button painted in the cell; a click on it emits ``clicked(agent_id)``."""

    clicked = Signal(str)

    def button_rect(self, cell: QRect) -> QRect:
        w, h = min(cell.width() - 2 * style.SPACING, 56), min(cell.height() - style.SPACING, style.METRICS.button)
        return QRect(cell.center().x() - w // 2, cell.center().y() - h // 2, w, h)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        info = index.data(AgentRole)
        if info is None or info.state.final:
            return
        button = QStyleOptionButton()
        button.rect = self.button_rect(option.rect)
        button.text = "Kill"
        live = bool(index.data())  # "" while the kernel is detached: drawn disabled, takes no click
        button.state = (QStyle.StateFlag.State_Enabled if live else QStyle.StateFlag.State_None) \
            | QStyle.StateFlag.State_Raised
        widget = option.widget
        (widget.style() if widget else QApplication.style()).drawControl(
            QStyle.ControlElement.CE_PushButton, button, painter, widget)

    def editorEvent(self, event: QEvent, model: Any, option: QStyleOptionViewItem, index: Index) -> bool:
        if event.type() == QEvent.Type.MouseButtonRelease and isinstance(event, QMouseEvent):
            info = index.data(AgentRole)
            if info is not None and not info.state.final and bool(index.data()) and \
                    self.button_rect(option.rect).contains(event.position().toPoint()):
                self.clicked.emit(info.id)
                return True
        return False


EMPTY_TEXT = ("No agents yet.\n\n+ New Ask (Ctrl+N) starts one. Every agent you start is listed here "
              "with its state, its tokens and its live leases, and a Kill button.")


class ProcessView(QTableView):
    """The table; ``open_requested(agent_id)`` asks the main window to open or raise a window."""

    open_requested = Signal(str)
    error = Signal(str)

    def __init__(self, kernel: KernelFacade, model: ProcessTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kernel = kernel
        self.setModel(model)
        self.setObjectName("processes")
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setTabKeyNavigation(False)  # Tab leaves the table (it went cell to cell, never out); arrows move inside
        self.setShowGrid(False)
        self.setAlternatingRowColors(True)
        self.setMouseTracking(True)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(style.METRICS.row)
        header = self.horizontalHeader()
        header.setHighlightSections(False)
        header.setMinimumSectionSize(24)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header.setSectionResizeMode(COL_NAME, QHeaderView.ResizeMode.Stretch)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # columns give way instead
        bar = self.horizontalScrollBar()  # and never scrolled sideways (a lease text growing for a frame did)
        bar.valueChanged.connect(lambda value: bar.setValue(0) if value else None)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self._name = NameDelegate(self)
        self.setItemDelegateForColumn(COL_NAME, self._name)
        self._bar = TokenBarDelegate(self)
        self._kill = KillButtonDelegate(self)
        self._kill.clicked.connect(self.kill)
        self.setItemDelegateForColumn(COL_TOKENS, self._bar)
        self.setItemDelegateForColumn(COL_KILL, self._kill)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.DefaultContextMenu)  # contextMenuEvent: mouse or keyboard
        model.dataChanged.connect(self._leases_changed)
        self.doubleClicked.connect(lambda idx: self.open_requested.emit(self._agent(idx).id))
        self.last_menu: QMenu | None = None
        self.last_dialog: QInputDialog | None = None
        self.kill_prompt: QMessageBox | None = None

    def _agent(self, index: Index) -> AgentInfo:
        return cast(AgentInfo, index.data(AgentRole))

    # ---- fitting the width -----------------------------------------------------------

    def column_widths(self) -> dict[int, int]:
        """What each column but the name needs, from the fonts in use."""
        pad = 4 * style.SPACING
        plain = self.fontMetrics()
        bold_font = QFont(self.font())
        bold_font.setBold(True)
        bold = QFontMetrics(bold_font)
        mono = QFontMetrics(style.mono_font())
        return {
            COL_ID: mono.horizontalAdvance("a0000") + pad,
            COL_STATE: max(bold.horizontalAdvance(style.state_text(s)) for s in style.STATES) + pad,
            COL_TOKENS: BAR_WIDTH + plain.horizontalAdvance("200.0k / 200k") + pad + style.SPACING,  # "41.2k · $0.14" fits
            COL_LEASES: max([plain.horizontalAdvance("leases")] + [plain.horizontalAdvance(self._lease_text(r))
                                                                    for r in range(self.model().rowCount())]) + pad,
            COL_STARTED: plain.horizontalAdvance("00:00") + pad,
            COL_KILL: 56 + 2 * style.SPACING,
        }

    def fit_columns(self) -> list[int]:
        """Size the columns to the viewport, hiding the least needed ones first; returns the hidden ones."""
        room = self.viewport().width()
        widths = self.column_widths()
        # the name column is never narrower than its header ("name · model" was cut at both ends at 1024 px
        # beside a long lease); a long lease text gives up its tail first (it elides; the tooltip has it all)
        name_min = max(NAME_MIN, self.horizontalHeader().fontMetrics().horizontalAdvance(COLUMNS[COL_NAME])
                       + 4 * style.SPACING)
        over = sum(w for c, w in widths.items() if c not in (COL_ID, COL_STARTED)) + name_min - room
        if over > 0:
            floor = self.fontMetrics().horizontalAdvance("fs.write \u00b7 15 min left") + 4 * style.SPACING
            widths[COL_LEASES] = max(min(floor, widths[COL_LEASES]), widths[COL_LEASES] - over)
        hidden: list[int] = []
        for col in HIDE_FIRST:
            if sum(w for c, w in widths.items() if c not in hidden) + name_min <= room:
                break
            hidden.append(col)
        header = self.horizontalHeader()
        for col, width in widths.items():
            self.setColumnHidden(col, col in hidden)
            header.resizeSection(col, width)
        return hidden

    def _lease_text(self, row: int) -> str:
        return str(self.model().index(row, COL_LEASES).data(Qt.ItemDataRole.DisplayRole) or "")

    def _leases_changed(self, top: QModelIndex, bottom: QModelIndex) -> None:
        if top.column() <= COL_LEASES <= bottom.column():
            self.fit_columns()  # a lease's text got longer or shorter: its column follows

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.fit_columns()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        super().paintEvent(event)
        if self.model().rowCount() == 0:  # the empty state explains itself
            painter = QPainter(self.viewport())
            painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(self.viewport().rect().adjusted(16, 16, -16, -16),
                             int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap), EMPTY_TEXT)
            painter.end()

    def model(self) -> ProcessTableModel:
        return cast(ProcessTableModel, super().model())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentIndex().isValid():
            self.open_requested.emit(self._agent(self.currentIndex()).id)
            return
        if event.key() == Qt.Key.Key_Delete and self.currentIndex().isValid():
            if not self.model().rows.detached:  # nothing can be killed while the kernel is away
                self.confirm_kill(self._agent(self.currentIndex()).id)
            return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802 - Qt's name
        """The row's menu: under the mouse, or (Menu key) the selected row's, shown under that row."""
        mouse = event.reason() == QContextMenuEvent.Reason.Mouse
        index = self.indexAt(event.pos()) if mouse else self.currentIndex()  # a mouse's pos is the viewport's
        if not index.isValid():
            return
        self.scrollTo(index)
        where = event.pos() if mouse else self.visualRect(index).bottomLeft()
        self.last_menu = self.build_menu(self._agent(index).id, self._agent(index))
        self.last_menu.popup(self.viewport().mapToGlobal(where))

    # ---- actions -------------------------------------------------------------

    def kill(self, agent_id: str) -> None:
        self._try(self.kernel.agents.kill, agent_id)

    def _try(self, fn: Callable[..., object], *args: object) -> None:
        try:
            fn(*args)
        except KernelError as exc:  # an action the state no longer allows: say so, don't crash
            self.error.emit(str(exc))

    def build_menu(self, agent_id: str, shown: AgentInfo | None = None) -> QMenu:
        """The row's actions; while the kernel is detached the same list, every action off under a line saying
        so (the kernel is not asked: the row's last known ``shown`` info names the agent)."""
        if self.model().rows.detached:
            return self._detached_menu(agent_id, shown)
        info = self.kernel.agents.get(agent_id)
        menu = QMenu(self)
        menu.addAction("Open window", lambda: self.open_requested.emit(agent_id))
        menu.addSeparator()
        pause = menu.addAction("Pause", lambda: self._try(self.kernel.agents.pause, agent_id))
        pause.setEnabled(info.state.can_pause)
        resume = menu.addAction("Resume", lambda: self._try(self.kernel.agents.resume, agent_id))
        resume.setEnabled(info.state.resumable)
        budget = menu.addAction("Raise budget…", lambda: self.ask_budget(agent_id))
        budget.setEnabled(not info.state.final)
        revoke = menu.addMenu("Revoke lease")
        leases = self.model().rows.live_leases(agent_id)
        now = self.model().rows.now()
        for lease in leases:
            action = QAction(f"{lease.scope}  ·  {describe_left(lease.seconds_left(now))}", revoke)
            action.setFont(style.mono_font())
            action.triggered.connect(lambda _=False, lid=lease.id: self.kernel.leases.revoke(lid))
            revoke.addAction(action)
        revoke.setEnabled(bool(leases))
        archive = menu.addAction("Archive (move to History)", lambda: self._try(self.kernel.agents.archive, agent_id))
        archive.setEnabled(not info.state.busy)
        menu.addSeparator()
        kill = menu.addAction(f"Kill {agent_id} {info.name}\u2026", lambda: self.confirm_kill(agent_id))
        kill.setEnabled(not info.state.final)
        return menu

    def _detached_menu(self, agent_id: str, shown: AgentInfo | None) -> QMenu:
        menu = QMenu(self)
        name = f" {shown.name}" if shown is not None else ""
        for text in ("\u26a0 kernel detached \u2014 reconnecting", None, "Open window", None, "Pause", "Resume",
                     "Raise budget\u2026", "Revoke lease", "Archive (move to History)", None,
                     f"Kill {agent_id}{name}\u2026"):
            if text is None:
                menu.addSeparator()
            else:
                menu.addAction(text).setEnabled(False)
        return menu

    def confirm_kill(self, agent_id: str) -> QMessageBox | None:
        """Ask, naming the agent, before killing it from the keyboard or the menu (Cancel is the default)."""
        info = self.kernel.agents.get(agent_id)
        if info.state.final:
            return None
        self.kill_prompt = confirm_stop(self, info.name, agent_id, lambda: self.kill(agent_id))
        return self.kill_prompt

    def ask_budget(self, agent_id: str) -> QInputDialog:
        """A window-modal prompt for the new budget (nothing application-modal)."""
        dialog = open_raise_budget(self, self.kernel.agents.get(agent_id),
                                   lambda value: self._try(self.kernel.agents.raise_budget, agent_id, value))
        self.last_dialog = dialog
        return dialog
