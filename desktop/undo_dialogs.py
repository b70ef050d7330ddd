"""Undo, in two steps the user can read: what will happen to each file, then what did.

``describe_plan`` and ``describe_result`` turn the kernel's ``UndoReport``
into rows of words (action, file, note) with paths relative to the
workspace; the dialogs only lay those rows out. Both dialogs are
window-modal to the main window, never application-modal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog, QDialogButtonBox, QLabel, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget,
)

from kernel.api import UndoReport

from . import style
from .wording import plural

Relative = Callable[[str], str]
VERBS = {"restore": "restore", "delete": "delete", "create": "create again"}
PAST = {"restore": "restored", "delete": "deleted", "create": "created again"}


@dataclass(frozen=True)
class FileRow:
    action: str   # restore · delete · create · conflict
    path: str
    note: str


def _rows(report: UndoReport, rel: Relative, words: dict[str, str]) -> list[FileRow]:
    rows: list[FileRow] = []
    seen: set[str] = set()
    for step in report.steps:  # newest first; one row per file, describing its final action
        if step.path in seen:
            continue
        seen.add(step.path)
        oldest = [s for s in report.steps if s.path == step.path][-1]
        note = f"back to how it was before #{oldest.change.seq} (by {oldest.change.actor})"
        rows.append(FileRow(words.get(oldest.action, oldest.action), rel(step.path), note))
    for conflict in report.conflicts:
        rows.append(FileRow("conflict", rel(conflict.path), conflict.reason + " — left untouched"))
    return rows


def describe_plan(report: UndoReport, rel: Relative) -> tuple[str, list[FileRow]]:
    """The confirmation's headline and rows, from a dry run."""
    rows = _rows(report, rel, VERBS)
    n = len({s.path for s in report.steps})
    if not rows:
        return (f"Nothing to undo after #{report.after}: no file changes follow it.", rows)
    head = f"Undo {plural(len(report.steps), 'change')} to {plural(n, 'file')} made after #{report.after}?"
    if report.conflicts:
        head += f" {plural(len(report.conflicts), 'file')} changed since and will be left as they are."
    return head, rows


def describe_result(report: UndoReport, rel: Relative) -> tuple[str, list[FileRow]]:
    """The result summary's headline and rows, from the applied undo."""
    rows = _rows(report, rel, PAST)
    counts: dict[str, int] = {}
    for row in rows:
        if row.action != "conflict":
            counts[row.action] = counts.get(row.action, 0) + 1
    done = ", ".join(f"{n} {action}" for action, n in counts.items()) or "nothing reversed"
    head = f"Undo #{report.undo_seq}: {done}." if report.undo_seq else f"Undo: {done}."
    if report.conflicts:
        head += f" {plural(len(report.conflicts), 'conflict')}: " + \
            ("that file was" if len(report.conflicts) == 1 else "those files were") + " not touched."
    return head, rows


class _FilesDialog(QDialog):
    def __init__(self, parent: QWidget | None, title: str, head: str, rows: list[FileRow]) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        layout = QVBoxLayout(self)
        self.headline = QLabel(head)
        self.headline.setWordWrap(True)
        layout.addWidget(self.headline)
        self.files = QTreeWidget()
        self.files.setRootIsDecorated(False)
        self.files.setHeaderLabels(["action", "file", "note"])
        for row in rows:
            item = QTreeWidgetItem([row.action, row.path, row.note])
            item.setFont(1, style.mono_font())
            if row.action == "conflict":
                for col in range(3):
                    item.setForeground(col, style.role_colour("error"))
            self.files.addTopLevelItem(item)
        for col in range(3):
            self.files.resizeColumnToContents(col)
        self.files.setVisible(bool(rows))
        layout.addWidget(self.files)
        self.rows = rows
        self.buttons = QDialogButtonBox()
        layout.addWidget(self.buttons)
        style.grid(self, margins=3, spacing=2)
        self.resize(640, 320 if rows else 120)


class UndoConfirmDialog(_FilesDialog):
    """Lists each file and what will happen to it; ``confirmed`` when the user presses Undo."""

    confirmed = Signal()

    def __init__(self, parent: QWidget | None, report: UndoReport, rel: Relative, who: str | None = None) -> None:
        head, rows = describe_plan(report, rel)
        if who:
            head = head.replace("made after", f"made by {who} after")
        super().__init__(parent, "Undo changes", head, rows)
        self.undo_button: QPushButton | None = None
        if report.steps:
            self.undo_button = self.buttons.addButton("Undo", QDialogButtonBox.ButtonRole.AcceptRole)
            self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
            self.undo_button.setDefault(True)
        else:
            self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.accepted.connect(self.confirmed)


class UndoResultDialog(_FilesDialog):
    def __init__(self, parent: QWidget | None, report: UndoReport, rel: Relative) -> None:
        head, rows = describe_result(report, rel)
        super().__init__(parent, "Undo finished", head, rows)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Ok)
        self.buttons.accepted.connect(self.accept)
