"""The Automations window: the list, Run now / Pause / Resume / Delete, run history, and the Inbox
(with the outward calls whose outcome is unknown: ``outward_inbox``; chat channels' pairing requests:
``pairing_inbox``).

A view of ``kernel.automations`` that reloads on ``AutomationsChanged``
events and the bridge's tick (for "in 3 h"). Each run opens read-only: its
transcript when the agent is in this kernel, else what the kernel recorded
(outcome, final reply, files changed). Adding a refused scope to a policy
asks first, in words.

While the kernel is away (``detach``) the window says so in one sentence and
stops asking it (the tick used to print a NotRunning traceback every second);
``reattach`` reloads. A call that fails because the kernel went before the
window heard of it says the same sentence, once.
"""

from __future__ import annotations

from PySide6.QtGui import QCloseEvent

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView, QDialog, QHBoxLayout, QHeaderView, QLabel, QMessageBox, QPlainTextEdit, QPushButton,
    QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from kernel.api import (
    AutomationsChanged, AutomationView, InboxItem, KernelError, KernelFacade, RunRecord, ScheduleRefused, TextPart, in_words,
    local_time,
)

from . import style
from .automations_form import AutomationForm
from .outward_inbox import OutwardInbox
from .pairing_inbox import PairingInbox
from .sizing import fit_to_screen, keep_on_screen, show_rows
from .wording import plain_tip
from .widgets.dialog_parts import heading


DETACHED_WORDS = ("The kernel is not reachable (it stopped or is restarting): automations, runs and the Inbox "
                  "show again when it is back; the desktop reconnects by itself.")


def _table(headers: list[str]) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(headers)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setTabKeyNavigation(False)  # Tab leaves the table (it went cell to cell, never out); arrows move inside
    t.verticalHeader().setVisible(False)
    t.horizontalHeader().setStretchLastSection(True)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    return t


def _wrapping(t: QTableWidget, last: int) -> QTableWidget:
    """A table whose last column (``last``) holds sentences: wrapped whole, never elided to "asked for
    fs.write to …" (what was refused is the point of the row); the row grows to fit."""
    t.setWordWrap(True)
    t.setTextElideMode(Qt.TextElideMode.ElideNone)
    header = t.horizontalHeader()
    for col in range(last):
        header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(last, QHeaderView.ResizeMode.Stretch)
    header.sectionResized.connect(lambda *_a: t.resizeRowsToContents())  # narrower: more lines
    return t


def run_detail(run: RunRecord) -> str:
    """What the Runs table says of a run: the kernel's detail, else (a run that succeeded) the start of its
    final reply and the files it changed; never an empty cell."""
    if run.detail:
        return run.detail
    reply = " ".join(run.summary.split())
    files = f"{len(run.files)} file{'s' if len(run.files) != 1 else ''} changed" if run.files else "no file changed"
    return f"{files}; replied: {reply[:160] + ('…' if len(reply) > 160 else '')}" if reply else files


def _cell(text: str, tip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setToolTip(plain_tip(tip or text) or "")  # a run's reply, a refused call's arguments
    return item


def _titled(title: str, table: QTableWidget, bar: QHBoxLayout | None = None) -> QWidget:
    box = QWidget()
    lay = QVBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.addWidget(heading(title))
    if bar is not None:
        lay.addLayout(bar)
    lay.addWidget(table)
    return box


class AutomationsWindow(QWidget):
    def __init__(self, kernel: KernelFacade, bridge: object | None = None, default_workspace: str = "") -> None:
        super().__init__()
        self.kernel = kernel
        self.default_workspace = default_workspace
        self.setWindowTitle("Automations")
        self.views: list[AutomationView] = []
        self.run_rows: list[RunRecord] = []
        self.items: list[InboxItem] = []
        self.list = _table(["Name", "Schedule", "Next run", "Last outcome"])
        self.history = _wrapping(_table(["Slot", "Try", "Outcome", "Detail"]), 3)
        self.inbox = _wrapping(_table(["When", "Automation", "What"]), 2)
        self.buttons: dict[str, QPushButton] = {}
        bar = QHBoxLayout()
        for key, text, slot in (("new", "&New…", self.new), ("edit", "&Edit…", self.edit),
                                ("run", "&Run now", self.run_now), ("pause", "&Pause", self.toggle_pause),
                                ("delete", "&Delete", self.delete)):
            button = QPushButton(text)
            button.clicked.connect(slot)
            self.buttons[key] = button
            bar.addWidget(button)
        bar.addStretch(1)
        inbox_bar = QHBoxLayout()
        for key, text, slot in (("add", "&Add to policy…", self.add_to_policy), ("dismiss", "Dis&miss", self.dismiss)):
            button = QPushButton(text)
            button.clicked.connect(slot)
            self.buttons[key] = button
            inbox_bar.addWidget(button)
        inbox_bar.addStretch(1)
        self.detached = False
        self.detached_label = QLabel(DETACHED_WORDS)  # the kernel is away: said once, here
        self.detached_label.setWordWrap(True)
        self.detached_label.setStyleSheet(f"color: {style.role_colour('error').name()}; font-weight: 600;")
        self.detached_label.hide()
        self.empty = QLabel("No automations yet. New… defines one: an objective, a schedule at least an hour "
                            "apart, and the leases each run gets.")
        self.empty.setWordWrap(True)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.detached_label)
        top_layout.addLayout(bar)
        top_layout.addWidget(self.empty)
        top_layout.addWidget(self.list)
        self.outward = OutwardInbox(kernel)  # outward calls whose outcome is unknown (kernel/tools/outward.py)
        self.pairing = PairingInbox(kernel)  # chat channels' pairing codes: Approve / Deny, and Revoke (issue 27)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(_titled("Runs (Enter opens one)", self.history))
        # The refused requests above the outward calls, each with room for a few rows (a splitter between them).
        self.inbox_split = QSplitter(Qt.Orientation.Vertical)
        inbox_box = _titled("Inbox", self.inbox, inbox_bar)
        self.inbox_split.addWidget(inbox_box)
        self.inbox_split.addWidget(self.outward)
        self.inbox_split.addWidget(self.pairing)
        self.inbox_split.setChildrenCollapsible(False)
        bottom.addWidget(self.inbox_split)
        show_rows(self.list, 3)
        show_rows(self.inbox, 3)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setChildrenCollapsible(False)
        split.setStretchFactor(1, 1)  # the runs and the Inbox take what the list does not need
        split.setSizes([top.minimumSizeHint().height(), 10_000])
        self.inbox_split.setStretchFactor(1, 1)
        self.inbox_split.setSizes([inbox_box.minimumSizeHint().height(), 10_000])
        layout = QVBoxLayout(self)
        m = style.SPACING * 2
        layout.setContentsMargins(m, m, m, m)
        layout.addWidget(split)
        self.list.itemSelectionChanged.connect(self._show_runs)
        self.list.doubleClicked.connect(lambda _i: self.edit())
        self.history.activated.connect(lambda _i: self.open_run())
        self.history.doubleClicked.connect(lambda _i: self.open_run())
        self._unsubscribe = kernel.subscribe(self._on_event) if bridge is None else None
        if bridge is not None:
            bridge.event.connect(self._on_event)  # type: ignore[attr-defined]
            bridge.tick.connect(self.reload)  # type: ignore[attr-defined]
        fit_to_screen(self, (1000, 660))  # 1000×652 on a 1024×700 screen, its title bar on it too
        self.reload()

    # ---- loading ------------------------------------------------------------------------

    def _on_event(self, event: object) -> None:
        if isinstance(event, AutomationsChanged):
            self.reload()
        self.outward.on_event(event)
        if not self.detached:
            self.pairing.on_event(event)

    def selected(self) -> AutomationView | None:
        row = self.list.currentRow()
        return self.views[row] if 0 <= row < len(self.views) else None

    def detach(self) -> None:
        """The kernel went away: say so once, stop asking it, and turn off what needs it."""
        self.detached = True
        self.detached_label.show()
        for button in self.buttons.values():
            button.setEnabled(False)
        self.outward.detach()

    def reattach(self) -> None:
        self.detached = False
        self.detached_label.hide()
        self.reload()
        self.outward.reattach()

    def reload(self) -> None:
        if self.detached:
            return
        try:
            self._reload()
        except KernelError:  # it went before the window heard (``detach`` comes with the events connection)
            self.detach()

    def _reload(self) -> None:
        keep = self.selected()
        desk = self.kernel.automations
        self.views = desk.list()
        now = self.kernel.now()
        self.list.setRowCount(len(self.views))
        for row, v in enumerate(self.views):
            a = v.automation
            if v.next_run is None:
                nxt = "paused" if not a.enabled else "none"
            else:
                nxt = f"{local_time(v.next_run, a.timezone)} ({in_words(v.next_run - now)})"
            last = v.last.outcome if v.last else "never run"
            for col, text in enumerate((a.name, v.words, nxt, last)):
                self.list.setItem(row, col, _cell(text))
        self.empty.setVisible(not self.views)
        self.list.setVisible(bool(self.views))
        ids = [v.automation.id for v in self.views]
        if ids:
            self.list.selectRow(ids.index(keep.automation.id) if keep and keep.automation.id in ids else 0)
        self._show_runs()
        self.items = desk.inbox()
        self.inbox.setRowCount(len(self.items))
        names = {v.automation.id: v.automation.name for v in self.views}
        zones = {v.automation.id: v.automation.timezone for v in self.views}
        for row, item in enumerate(self.items):
            when = local_time(item.ts, zones.get(item.automation, "UTC"))
            for col, text in enumerate((when, names.get(item.automation, item.automation),
                                        item.detail)):
                self.inbox.setItem(row, col, _cell(text))
        self.inbox.resizeRowsToContents()
        self.pairing.reload()
        self._enable()

    def _show_runs(self) -> None:
        if self.detached:
            return
        v = self.selected()
        self.run_rows = self.kernel.automations.runs(v.automation.id) if v else []
        self.history.setRowCount(len(self.run_rows))
        for row, r in enumerate(self.run_rows):
            tz = v.automation.timezone if v else "UTC"
            for col, text in enumerate((local_time(r.slot, tz), str(r.attempt + 1), r.outcome, run_detail(r))):
                self.history.setItem(row, col, _cell(text, r.summary if col == 3 and not r.detail else ""))
        self.history.resizeRowsToContents()
        self._enable()

    def _enable(self) -> None:
        if self.detached:
            return
        v = self.selected()
        self.buttons["new"].setEnabled(True)
        for key in ("edit", "run", "pause", "delete"):
            self.buttons[key].setEnabled(v is not None)
        self.buttons["pause"].setText("Res&ume" if v is not None and not v.automation.enabled else "&Pause")
        has_item = 0 <= self.inbox.currentRow() < len(self.items) or bool(self.items)
        self.buttons["add"].setEnabled(has_item)
        self.buttons["dismiss"].setEnabled(has_item)

    # ---- actions ------------------------------------------------------------------------

    def new(self) -> AutomationForm:
        form = AutomationForm(self.kernel, None, self, default_workspace=self.default_workspace)
        form.finished.connect(lambda _r: self.reload())
        form.open()
        return form

    def edit(self) -> AutomationForm | None:
        v = self.selected()
        if v is None:
            return None
        form = AutomationForm(self.kernel, v.automation, self)
        form.finished.connect(lambda _r: self.reload())
        form.open()
        return form

    def run_now(self) -> None:
        v = self.selected()
        if v is not None:
            self.kernel.automations.run_now(v.automation.id)

    def toggle_pause(self) -> None:
        v = self.selected()
        if v is None:
            return
        desk = self.kernel.automations
        desk.pause(v.automation.id) if v.automation.enabled else desk.resume(v.automation.id)

    def delete(self) -> QMessageBox | None:
        v = self.selected()
        if v is None:
            return None
        box = QMessageBox(QMessageBox.Icon.Question, "Delete automation",
                          f"Delete “{v.automation.name}”? No more runs start; its history stays on record.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.accepted.connect(lambda: self.kernel.automations.delete(v.automation.id))
        box.open()
        return box

    def _item(self) -> InboxItem | None:
        row = self.inbox.currentRow()
        if not self.items:
            return None
        return self.items[row if 0 <= row < len(self.items) else 0]

    def add_to_policy(self) -> QMessageBox | None:
        item = self._item()
        if item is not None and item.kind == "confirm":  # refused at once: the kernel says why it cannot be added
            self._add(item)
            return None
        if item is None or item.kind != "request":
            return None
        name = next((v.automation.name for v in self.views if v.automation.id == item.automation), item.automation)
        box = QMessageBox(QMessageBox.Icon.Question, "Add to the policy",
                          f"Let every future run of “{name}” use {item.scope} for 30 minutes without asking?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.accepted.connect(lambda: self._add(item))
        box.open()
        return box

    def _add(self, item: InboxItem) -> None:
        try:
            self.kernel.automations.add_to_policy(item.id, 1800.0)
        except ScheduleRefused as exc:
            QMessageBox.warning(self, "Not added", exc.reason)

    def dismiss(self) -> None:
        item = self._item()
        if item is not None:
            self.kernel.automations.dismiss(item.id)

    def open_run(self) -> "RunWindow | None":
        row = self.history.currentRow()
        v = self.selected()
        if v is None or self.detached or not 0 <= row < len(self.run_rows):  # detached: nothing to ask
            return None
        window = RunWindow(self.kernel, v.automation.name, v.automation.timezone, self.run_rows[row])
        window.setParent(self, Qt.WindowType.Window)
        window.show()
        keep_on_screen(window)
        return window

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        super().closeEvent(event)


def run_lines(kernel: KernelFacade, run: RunRecord) -> list[str]:
    """The run as the Run window shows it: the final reply once, at the top; then, when its agent is still
    in this kernel, the exchange before that reply (it used to end with the final reply, and the reply
    was shown twice when the record's copy was added); then the files changed."""
    reply = run.summary.strip()
    said: list[tuple[str, str]] = []
    if run.agent and any(a.id == run.agent for a in kernel.agents.list()):
        for message in kernel.agents.conversation(run.agent):
            words = "".join(p.text for p in message.parts if isinstance(p, TextPart)).strip()
            if words:
                said.append((message.role, words))
        if reply and said and said[-1][0] == "assistant" and said[-1][1].startswith(reply):
            reply = said.pop()[1]  # the whole reply (the record keeps its first 4,000 characters), shown once
    lines = [f"Final reply:\n{reply or '(none)'}\n"]
    if said:
        lines.append("How it got there:")
        lines += [f"{'Run' if role == 'assistant' else 'Kernel'}: {words}\n" for role, words in said]
    lines.append("Files changed: " + (", ".join(run.files) if run.files else "none"))
    return lines


class RunWindow(QDialog):
    """One run, read-only: outcome, transcript (when the agent is here), the final reply and the files changed."""

    def __init__(self, kernel: KernelFacade, name: str, tz: str, run: RunRecord) -> None:
        super().__init__()
        self.setWindowTitle(f"{name} · run of {local_time(run.slot, tz)}")
        header = heading(f"{run.outcome}" + (f" — {run.detail}" if run.detail else ""))
        header.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setPlainText("\n".join(run_lines(kernel, run)))
        layout = QVBoxLayout(self)
        layout.addWidget(header)
        layout.addWidget(self.text)
        fit_to_screen(self, (760, 520))  # on a 1024×700 screen with its frame, whatever the font
