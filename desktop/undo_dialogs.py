"""Undo, in two steps the user can read: what will happen to each file, then what did.

``describe_plan`` and ``describe_result`` turn the kernel's ``UndoReport``
into rows of words (action, file, note) with paths relative to the
workspace; the dialogs only lay those rows out. Both dialogs are
window-modal to the main window, never application-modal. A picture file's
row also says which picture goes and which comes back, as two small
thumbnails (the kernel's, through ``picture_tiles.Thumbnails``; "no file"
when that side has none), filled in as they arrive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QPushButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout,
    QWidget,
)

from kernel.api import UndoReport

from . import style
from .ledger_detail import LOADING, NO_FILE, NO_PICTURE, is_picture_path
from .picture_tiles import Thumbnails, tile
from .wording import plural

Relative = Callable[[str], str]
VERBS = {"restore": "restore", "delete": "delete", "create": "create again"}
PAST = {"restore": "restored", "delete": "deleted", "create": "created again"}


PICTURE_EDGE = 64  # px: a thumbnail's long side in the undo dialogs


@dataclass(frozen=True)
class FileRow:
    action: str   # restore · delete · create · conflict
    path: str
    note: str
    goes: str | None = None   # the blob the undo takes away (None: no file there now)
    back: str | None = None   # the blob that comes back (None: the file goes away)
    picture: bool = False     # a picture file: both sides are shown as thumbnails


def _rows(report: UndoReport, rel: Relative, words: dict[str, str]) -> list[FileRow]:
    rows: list[FileRow] = []
    seen: set[str] = set()
    for step in report.steps:  # newest first; one row per file, describing its final action
        if step.path in seen:
            continue
        seen.add(step.path)
        oldest = [s for s in report.steps if s.path == step.path][-1]
        note = f"back to how it was before #{oldest.change.seq} (by {oldest.change.actor})"
        rows.append(FileRow(words.get(oldest.action, oldest.action), rel(step.path), note, goes=step.change.after,
                            back=oldest.restore, picture=is_picture_path(step.path)))
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


class PicturePair(QWidget):
    """The picture that goes, an arrow, the picture that comes back: small thumbnails, or "no file"."""

    def __init__(self, row: FileRow, thumbnails: Thumbnails) -> None:
        super().__init__()
        self._thumbnails = thumbnails
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.setSpacing(style.SPACING)
        self.goes, self.back = QLabel(), QLabel()
        self.sides = {"goes": row.goes, "back": row.back}
        arrow = QLabel("\u2192")
        for label, words in ((self.goes, "goes"), (self.back, "comes back")):
            label.setFixedSize(PICTURE_EDGE, PICTURE_EDGE)
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setToolTip(f"the picture that {words}")
        layout.addWidget(self.goes)
        layout.addWidget(arrow)
        layout.addWidget(self.back)
        layout.addStretch(1)
        for sha in (row.goes, row.back):
            if sha is not None:
                thumbnails.want(sha)
        thumbnails.arrived.connect(self.refresh)
        self.refresh()

    def words(self, side: str) -> str:
        """What a side shows: "picture", or the tile's words (no file, no picture, loading…)."""
        sha = self.sides[side]
        if sha is None:
            return NO_FILE
        if not self._thumbnails.known(sha):
            return LOADING
        return "picture" if self._thumbnails.has_image(sha) else NO_PICTURE

    def refresh(self, *args: object) -> None:
        muted = style.role_colour("muted")
        for label, side in ((self.goes, "goes"), (self.back, "back")):
            sha = self.sides[side]
            image = self._thumbnails.image(sha) if sha is not None else None
            if image is None:
                image = tile(self.words(side), PICTURE_EDGE, muted)
            pixmap = QPixmap.fromImage(image)
            if max(pixmap.width(), pixmap.height()) > PICTURE_EDGE:
                pixmap = pixmap.scaled(PICTURE_EDGE, PICTURE_EDGE, Qt.AspectRatioMode.KeepAspectRatio,
                                       Qt.TransformationMode.SmoothTransformation)
            label.setPixmap(pixmap)


class _FilesDialog(QDialog):
    def __init__(self, parent: QWidget | None, title: str, head: str, rows: list[FileRow],
                 thumbnails: Thumbnails | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        layout = QVBoxLayout(self)
        self.headline = QLabel(head)
        self.headline.setWordWrap(True)
        layout.addWidget(self.headline)
        self.files = QTreeWidget()
        self.files.setRootIsDecorated(False)
        pictures = thumbnails is not None and any(r.picture for r in rows)
        self.files.setHeaderLabels(["action", "file", "note"] + (["picture: goes \u2192 comes back"] if pictures else []))
        self.pictures: dict[str, PicturePair] = {}  # by the row's path
        for row in rows:
            item = QTreeWidgetItem([row.action, row.path, row.note])
            item.setFont(1, style.mono_font())
            if row.action == "conflict":
                for col in range(3):
                    item.setForeground(col, style.role_colour("error"))
            self.files.addTopLevelItem(item)
            if pictures and thumbnails is not None and row.picture and row.action != "conflict":
                pair = PicturePair(row, thumbnails)
                item.setSizeHint(3, QSize(PICTURE_EDGE * 2 + 40, PICTURE_EDGE + 4))
                self.files.setItemWidget(item, 3, pair)
                self.pictures[row.path] = pair
        for col in range(4 if pictures else 3):
            self.files.resizeColumnToContents(col)
        self.files.setVisible(bool(rows))
        layout.addWidget(self.files)
        self.rows = rows
        self.buttons = QDialogButtonBox()
        layout.addWidget(self.buttons)
        style.grid(self, margins=3, spacing=2)
        self.resize(640 + (PICTURE_EDGE * 2 + 40 if pictures else 0), 320 if rows else 120)


class UndoConfirmDialog(_FilesDialog):
    """Lists each file and what will happen to it; ``confirmed`` when the user presses Undo."""

    confirmed = Signal()

    def __init__(self, parent: QWidget | None, report: UndoReport, rel: Relative, who: str | None = None,
                 thumbnails: Thumbnails | None = None) -> None:
        head, rows = describe_plan(report, rel)
        if who:
            head = head.replace("made after", f"made by {who} after")
        super().__init__(parent, "Undo changes", head, rows, thumbnails)
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
