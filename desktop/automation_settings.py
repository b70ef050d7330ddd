"""Settings → Automations: how late a missed slot may still run, and how many failed slots pause one.

Its own small page (like Policies and hooks) so the Settings dialog still
fits a 700-pixel screen. The rules are Qt-free (``automation_values``); the
page shows every problem beside Save in words and writes nothing until both
values are right. Window-modal to the Settings dialog.
"""

from __future__ import annotations

import math
from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget,
)

from kernel import SettingsStore
from kernel.api import ConfigError, Settings

from .widgets.dialog_parts import error_label, refuse, save_cancel
from .theme import MUTED, shade

GRACE_MAX_H = 7 * 24     # the settings schema's bound for automation_grace_s (a week)
PAUSE_AFTER_MAX = 100    # and for automation_pause_after


def automation_texts(settings: Settings) -> tuple[str, str]:
    """The two fields as the page opens: hours, and failed runs."""
    return f"{settings.automation_grace_s / 3600:g}", str(settings.automation_pause_after)


def automation_values(grace_h: str, pause_after: str) -> tuple[float | None, int | None, list[str]]:
    """The grace window in seconds and the pause count typed (None when wrong), and what is wrong, in words."""
    try:
        hours = float(grace_h.strip().removesuffix("h").strip())
    except ValueError:
        hours = math.nan
    try:
        count = int(pause_after.strip())
    except ValueError:
        count = 0
    grace = hours * 3600 if 0 <= hours <= GRACE_MAX_H else None
    pause = count if 1 <= count <= PAUSE_AFTER_MAX else None
    problems = []
    if grace is None:
        problems.append(f"The catch-up window must be a number of hours from 0 to {GRACE_MAX_H} (a week), not "
                        f"{grace_h.strip()[:20]!r}; 0 never catches up a missed run.")
    if pause is None:
        problems.append(f"An automation pauses itself after 1 to {PAUSE_AFTER_MAX} failed runs in a row: enter a "
                        f"whole number in that range, not {pause_after.strip()[:20]!r}.")
    return grace, pause, problems


class AutomationSettingsDialog(QDialog):
    saved = Signal(object)  # the new Settings

    def __init__(self, store: SettingsStore, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store, self.settings = store, settings
        self.setWindowTitle("Automations")
        self.setWindowModality(Qt.WindowModality.WindowModal if parent is not None else Qt.WindowModality.NonModal)
        grace, pause = automation_texts(settings)
        self.grace = QLineEdit(grace, self)
        self.grace.setObjectName("automation-grace")
        self.pause_after = QLineEdit(pause, self)
        self.pause_after.setObjectName("automation-pause-after")
        form = QFormLayout()
        form.addRow("Catch up a missed run within", self._with_unit(self.grace, "hours (0 to 168)"))
        form.addRow("Pause an automation after", self._with_unit(self.pause_after, "failed runs in a row (1 to 100)"))
        note = QLabel("After downtime only the latest missed slot runs, and only if it is this recent; older "
                      "slots are recorded as missed. A paused automation leaves a notice in the Inbox.", self)
        note.setWordWrap(True)
        note.setStyleSheet(f"color: {shade(MUTED, self.palette())};")
        self.error_label = error_label(self)
        self.buttons = save_cancel(self, self.save)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(520)

    def _with_unit(self, edit: QLineEdit, unit: str) -> QHBoxLayout:
        edit.setMaximumWidth(self.fontMetrics().horizontalAdvance("0") * 8 + 16)
        row = QHBoxLayout()
        row.addWidget(edit)
        row.addWidget(QLabel(unit, self), 1)
        return row

    def save(self) -> bool:
        """Check, write settings.json, emit ``saved``; False (with every problem shown) when it cannot."""
        grace, pause, problems = automation_values(self.grace.text(), self.pause_after.text())
        if problems or grace is None or pause is None:
            return refuse(self.error_label, "\n".join(problems))
        try:
            new = replace(self.settings, automation_grace_s=grace, automation_pause_after=pause)
            new.validate()
            self.store.save(new)
        except (ConfigError, OSError, ValueError) as exc:
            return refuse(self.error_label, f"Could not save: {exc}")
        self.settings = new
        self.saved.emit(new)
        self.accept()
        return True
