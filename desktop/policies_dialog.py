"""Settings › Policies and hooks: per-scope autonomy and the programs run around tool calls.

A thin form over ``policy_form``: two tables (scope → mode; hooks), every
problem shown beside Save, and a valid Save written through
``SettingsStore`` and announced with ``saved``. Window-modal to the Settings
dialog, never application-modal; every control is reachable by keyboard
(Tab through the tables, Add/Remove buttons, Esc cancels).
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QDialog, QDoubleSpinBox, QHBoxLayout, QHeaderView, QLabel,
    QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from kernel import SettingsStore
from kernel.api import ConfigError, Settings

from .policy_form import MODE_WORDS, MODES, HookRow, PolicyRow, apply_rows, check_rows, rows_from
from .sizing import fit_to_screen
from .widgets.dialog_parts import error_label, refuse, save_cancel
from .theme import MUTED, mono_font, shade

POLICY_NOTE = ("Without a policy, a scope asks with the lease dialog, and outward scopes (sending, commands "
               "with network, R3) ask on every call. A tainted agent's outward calls always ask, whatever the policy.")
HOOK_NOTE = ("A hook gets the call as JSON on stdin. Before a call: exit 2 refuses it, and what the program writes "
             "on stderr is the reason the agent reads; a hook that fails or runs too long stops the call. After a "
             "call: what it prints (exit 0) replaces what the agent reads.")


class PoliciesDialog(QDialog):
    saved = Signal(object)  # the new Settings

    def __init__(self, store: SettingsStore, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store, self.settings = store, settings
        self.setWindowTitle("Policies and hooks")
        self.setWindowModality(Qt.WindowModality.WindowModal if parent is not None else Qt.WindowModality.NonModal)
        policies, hooks = rows_from(settings)
        self._build()
        for row in policies:
            self.add_policy(row)
        for hook in hooks:
            self.add_hook(hook)
        fit_to_screen(self, (760, 560))

    def _build(self) -> None:
        muted = shade(MUTED, self.palette())
        self.policy_table = QTableWidget(0, 2, self)
        self.policy_table.setHorizontalHeaderLabels(["Scope", "Policy"])
        self.hook_table = QTableWidget(0, 5, self)
        self.hook_table.setHorizontalHeaderLabels(["Name", "When", "Scope", "Command", "Timeout"])
        for table in (self.policy_table, self.hook_table):
            table.verticalHeader().hide()
            table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
            table.setTabKeyNavigation(False)  # Tab leaves the table; arrows move inside it
            table.horizontalHeader().setStretchLastSection(True)
        self.hook_table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.hook_table.horizontalHeader().setStretchLastSection(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(8)
        layout.addWidget(QLabel("<b>Policies</b> \u2014 what happens when an agent needs a scope", self))
        layout.addWidget(self.policy_table, 1)
        layout.addLayout(self._buttons("policy", lambda: self.add_policy(PolicyRow("", "ask")), self.policy_table))
        policy_note = QLabel(POLICY_NOTE, self)
        layout.addWidget(policy_note)
        layout.addWidget(QLabel("<b>Hooks</b> \u2014 programs run before or after tool calls", self))
        layout.addWidget(self.hook_table, 1)
        layout.addLayout(self._buttons("hook", lambda: self.add_hook(HookRow("", "before", "", "*", 10.0)),
                                       self.hook_table))
        hook_note = QLabel(HOOK_NOTE, self)
        layout.addWidget(hook_note)
        for note in (policy_note, hook_note):
            note.setWordWrap(True)
            note.setStyleSheet(f"color: {muted};")
        self.error_label = error_label(self)
        layout.addWidget(self.error_label)
        self.buttons = save_cancel(self, self.save)
        layout.addWidget(self.buttons)

    def _buttons(self, what: str, add: Callable[[], None], table: QTableWidget) -> QHBoxLayout:
        row = QHBoxLayout()
        add_button = QPushButton(f"Add {what}", self)
        add_button.clicked.connect(add)
        remove = QPushButton(f"Remove {what}", self)
        remove.clicked.connect(lambda: table.removeRow(table.currentRow()) if table.currentRow() >= 0 else None)
        row.addWidget(add_button)
        row.addWidget(remove)
        row.addStretch(1)
        return row

    # ---- rows ----------------------------------------------------------------------

    def add_policy(self, row: PolicyRow) -> None:
        t = self.policy_table
        n = t.rowCount()
        t.insertRow(n)
        scope = QTableWidgetItem(row.scope)
        scope.setFont(mono_font())
        t.setItem(n, 0, scope)
        mode = QComboBox(t)
        for m in MODES:
            mode.addItem(MODE_WORDS[m], m)
        mode.setCurrentIndex(MODES.index(row.mode) if row.mode in MODES else 0)
        t.setCellWidget(n, 1, mode)
        t.resizeColumnToContents(0)
        t.setColumnWidth(0, max(200, t.columnWidth(0)))
        t.setCurrentCell(n, 0)

    def add_hook(self, row: HookRow) -> None:
        t = self.hook_table
        n = t.rowCount()
        t.insertRow(n)
        t.setItem(n, 0, QTableWidgetItem(row.name))
        when = QComboBox(t)
        when.addItems(["before", "after"])
        when.setCurrentText(row.when)
        t.setCellWidget(n, 1, when)
        scope = QTableWidgetItem(row.scope)
        scope.setFont(mono_font())
        t.setItem(n, 2, scope)
        command = QTableWidgetItem(row.command)
        command.setFont(mono_font())
        command.setToolTip(row.command)
        t.setItem(n, 3, command)
        timeout = QDoubleSpinBox(t)
        timeout.setRange(0.1, 600.0)
        timeout.setDecimals(1)
        timeout.setSuffix(" s")
        timeout.setValue(row.timeout_s)
        t.setCellWidget(n, 4, timeout)
        t.setCurrentCell(n, 0)

    def policy_rows(self) -> list[PolicyRow]:
        t = self.policy_table
        out = []
        for n in range(t.rowCount()):
            item, mode = t.item(n, 0), t.cellWidget(n, 1)
            assert isinstance(mode, QComboBox)
            out.append(PolicyRow(item.text() if item else "", str(mode.currentData())))
        return out

    def hook_rows(self) -> list[HookRow]:
        t = self.hook_table
        out = []
        for n in range(t.rowCount()):
            when, timeout = t.cellWidget(n, 1), t.cellWidget(n, 4)
            assert isinstance(when, QComboBox) and isinstance(timeout, QDoubleSpinBox)
            out.append(HookRow(_text(t, n, 0), when.currentText(), _text(t, n, 3), _text(t, n, 2) or "*",
                               timeout.value()))
        return out

    # ---- saving --------------------------------------------------------------------

    def save(self) -> bool:
        """Check, write settings.json, emit ``saved``; False (with every problem shown) when it cannot."""
        policies, hooks = self.policy_rows(), self.hook_rows()
        problems, _ = check_rows(policies, hooks)
        if problems:
            return refuse(self.error_label, "\n".join(problems))
        try:
            new = apply_rows(self.settings, policies, hooks)
            self.store.save(new)
        except (ConfigError, OSError, ValueError) as exc:
            return refuse(self.error_label, f"Could not save: {exc}")
        self.settings = new
        self.saved.emit(new)
        self.accept()
        return True


def _text(table: QTableWidget, row: int, col: int) -> str:
    item = table.item(row, col)
    return item.text() if item is not None else ""
