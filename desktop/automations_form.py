"""The automation form: a definition, with its schedule restated in words as the user types.

The kernel decides: the words and any refusal under the schedule field come
from ``Schedule`` (what the kernel itself checks), and Save goes through
``kernel.automations.add``/``update``; a refusal is shown as the kernel's
sentence and the form stays open. The timezone is an editable, searchable
list of the IANA zones (default: this computer's); the expiry is an optional
wall-clock time in that zone (``automation_fields``), restated with the
schedule.
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QDate, QDateTime, Qt, QTime
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QCompleter, QDateTimeEdit, QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout, QLabel,
    QLineEdit, QPlainTextEdit, QSpinBox, QVBoxLayout, QWidget,
)

from kernel.api import Automation, KernelFacade, PolicyItem, Schedule, ScheduleRefused

from . import style
from .automation_fields import expiry, expiry_words, local_zone, zone, zone_names
from .theme import ERROR


def parse_policy(text: str) -> tuple[PolicyItem, ...]:
    """``fs.read=30m, fs.write=10m`` → policy items (minutes; a bare scope gets 30 minutes)."""
    items = []
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        scope, _, minutes = part.partition("=")
        minutes = minutes.strip().rstrip("m").strip()
        if minutes and not minutes.isdigit():
            raise ScheduleRefused(f"{part!r}: write a scope and minutes, like fs.write=30m.")
        items.append(PolicyItem(scope.strip(), float(int(minutes or 30) * 60)))
    return tuple(items)


def policy_text(policy: tuple[PolicyItem, ...]) -> str:
    return ", ".join(f"{p.scope}={int(p.duration_s // 60)}m" for p in policy)


def zone_picker(current: str, parent: QWidget | None = None) -> QComboBox:
    """An editable list of every IANA zone; typing any part of a name (``berl``) finds it."""
    box = QComboBox(parent)
    box.setEditable(True)
    box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
    box.addItems(list(zone_names()))
    box.setMaxVisibleItems(12)
    completer = box.completer()  # the combo's own (over its items): no second object whose owner is unclear
    if completer is not None:  # an editable combo always has one
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
    box.setCurrentText(current)
    return box


class AutomationForm(QDialog):
    def __init__(self, kernel: KernelFacade, existing: Automation | None = None, parent: QWidget | None = None,
                 default_workspace: str = "") -> None:
        super().__init__(parent)
        self.kernel = kernel
        self.existing = existing
        self.saved: Automation | None = None
        self.setWindowTitle("Edit automation" if existing else "New automation")
        a = existing
        self.name = QLineEdit(a.name if a else "")
        self.objective = QPlainTextEdit(a.objective if a else "")
        self.objective.setTabChangesFocus(True)
        self.objective.setFixedHeight(80)
        self.schedule = QLineEdit(a.schedule if a else "0 7 * * 1-5")
        self.schedule.setFont(style.mono_font())
        self.schedule.setPlaceholderText("0 7 * * 1-5   or   every 2h")
        # no parent yet: a widget made with the dialog as parent enters the focus chain first, and the form
        # opened with the keyboard in Timezone (a typed name became "Etc/UTCNotes digest")
        self.timezone = zone_picker(a.timezone if a else local_zone())
        self.expires_on = QCheckBox("on")  # no mnemonic of its own: Alt+N is Name (it used to tick a 7-day expiry)
        self.expires = QDateTimeEdit()
        self.expires.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.expires.setCalendarPopup(True)
        self.expires_on.setToolTip("Unticked, the automation never expires. The time is in its timezone.")
        self.expires_on.setChecked(bool(a and a.expires is not None))
        self._show_expiry(a)
        self.expires.setEnabled(self.expires_on.isChecked())
        self.expires_on.toggled.connect(self.expires.setEnabled)
        expires_row = QHBoxLayout()
        expires_row.addWidget(self.expires_on)
        expires_row.addWidget(self.expires, 1)
        self.words = QLabel()
        self.words.setWordWrap(True)
        self.policy = QLineEdit(policy_text(a.policy) if a else "fs.read=30m")
        self.policy.setFont(style.mono_font())
        self.budget = QSpinBox()
        self.budget.setRange(1000, 2_000_000)
        self.budget.setSingleStep(10_000)
        self.budget.setGroupSeparatorShown(True)
        self.budget.setValue(a.budget if a else 100_000)
        self.time_limit = QSpinBox()
        self.time_limit.setRange(1, 1440)
        self.time_limit.setSuffix(" min")
        self.time_limit.setValue(int(a.time_limit_s // 60) if a else 30)
        self.workspace = QLineEdit(a.workspace if a else default_workspace)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {ERROR};")
        form = QFormLayout()
        form.addRow("&Name", self.name)
        form.addRow("&Objective", self.objective)
        form.addRow("&Schedule", self.schedule)
        form.addRow("", self.words)
        form.addRow("&Timezone", self.timezone)
        expires_label = QLabel("E&xpires")  # Alt+X goes to the box; only Space ticks it
        expires_label.setBuddy(self.expires_on)
        form.addRow(expires_label, expires_row)
        form.addRow("&Policy", self.policy)
        form.addRow("&Budget per run", self.budget)
        form.addRow("Time &limit", self.time_limit)
        form.addRow("&Workspace", self.workspace)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.schedule.textChanged.connect(self.restate)
        self.timezone.currentTextChanged.connect(self.restate)
        self.expires_on.toggled.connect(self.restate)
        self.expires.dateTimeChanged.connect(self.restate)
        self.restate()
        self.resize(560, self.sizeHint().height())
        self.name.setFocus(Qt.FocusReason.OtherFocusReason)  # where a new automation starts: its name

    def restate(self) -> None:
        """The schedule in words, or the kernel's reason it would refuse it, as the user types."""
        schedule = Schedule(self.schedule.text().strip(), self.tz())
        try:
            schedule.check(self.kernel.now())
            until = self.expiry()
        except ScheduleRefused as exc:
            self.words.setText(exc.reason)
            self.words.setStyleSheet(f"color: {ERROR};")
            return
        self.words.setText(schedule.words() + ("" if until is None else f", until {expiry_words(until, self.tz())}"))
        self.words.setStyleSheet("")

    def tz(self) -> str:
        return self.timezone.currentText().strip() or "UTC"

    def expiry(self) -> float | None:
        """The expiry typed, as a time in the automation's zone; None when it never expires."""
        if not self.expires_on.isChecked():
            return None
        d, t = self.expires.date(), self.expires.time()
        return expiry(d.year(), d.month(), d.day(), t.hour(), t.minute(), self.tz())

    def _show_expiry(self, a: Automation | None) -> None:
        """The stored expiry as a wall time in its zone; a week from now when there is none yet."""
        tz = a.timezone if a else self.tz()
        try:
            when = datetime.fromtimestamp(a.expires if a and a.expires is not None else self.kernel.now() + 7 * 86400,
                                          zone(tz))
        except ScheduleRefused:
            return
        self.expires.setDateTime(QDateTime(QDate(when.year, when.month, when.day), QTime(when.hour, when.minute)))

    def definition(self) -> Automation:
        base = self.existing or Automation(id="", name="", objective="", schedule="")
        return base.with_(name=self.name.text().strip(), objective=self.objective.toPlainText().strip(),
                          schedule=self.schedule.text().strip(), timezone=self.tz(), expires=self.expiry(),
                          policy=parse_policy(self.policy.text()), budget=self.budget.value(),
                          time_limit_s=float(self.time_limit.value() * 60), workspace=self.workspace.text().strip())

    def save(self) -> None:
        desk = self.kernel.automations
        try:
            a = self.definition()
            self.saved = desk.update(a) if self.existing else desk.add(a)
        except ScheduleRefused as exc:
            self.error.setText(exc.reason)
            return
        self.accept()
