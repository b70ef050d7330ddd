"""A settings problem found at start: the same sentence the CLI prints, and the two ways out.

The desktop never refuses to start over a bad value: ``SettingsStore.check``
puts the default in place of each bad field, and this dialog says what was
wrong (``settings.json: default_lease_s must be a number of seconds between 1
and 28800 (found "x")``) and offers "Open Settings" (save a corrected form)
or "Restore default for <field>" (rewrite just that field; the rest of the
file stays as it was, and a file that cannot be parsed at all is set aside as
``<name>.broken``, never deleted). After a restore the next problem is shown;
when none is left the dialog closes. Not modal: the desktop stays usable.
"""

from __future__ import annotations

from typing import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from kernel.api import ConfigError, looks_secret

from .theme import ERROR, MUTED, shade

Restore = Callable[[ConfigError], Sequence[ConfigError]]  # fixes one problem, returns those left


def restore_label(problem: ConfigError) -> str:
    name = problem.field or problem.file or "this setting"
    return f"Restore default for {'this entry' if looks_secret(name) else name}"


def consequence(problem: ConfigError) -> str:
    """What Agentdesk does meanwhile, and what a restore will change."""
    if problem.file == "keys.json":
        if problem.field is None:
            return ("No key from keys.json is used until this is fixed. Restoring sets the file aside as "
                    "keys.json.broken and starts an empty one.")
        return "This entry is ignored until it is fixed. Restoring removes it from keys.json."
    if problem.field is None:
        return ("Agentdesk is using its default settings. Restoring sets the file aside as "
                "settings.json.broken and keeps the defaults.")
    return (f"Agentdesk is using the default for {problem.field} meanwhile. Restoring rewrites only that "
            "setting; the others stay as they are.")


class ConfigProblemDialog(QDialog):
    """One problem at a time, with Open Settings and Restore default for <field>."""

    def __init__(self, problems: Sequence[ConfigError], restore: Restore, open_settings: Callable[[], object],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._restore = restore
        self._open_settings = open_settings
        self.setWindowTitle("A setting needs attention")
        self.setWindowModality(Qt.WindowModality.NonModal)
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)  # the file's text is not markup
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setStyleSheet(f"color: {shade(ERROR, self.palette())};")
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {shade(MUTED, self.palette())};")
        self.open_button = QPushButton("Open Settings", self)
        self.open_button.clicked.connect(self.open_settings)
        self.restore_button = QPushButton(self)
        self.restore_button.clicked.connect(self.restore_default)
        close = QPushButton("Close", self)
        close.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.restore_button)
        buttons.addStretch(1)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(8)
        layout.addWidget(self.message)
        layout.addWidget(self.note)
        layout.addLayout(buttons)
        self.setMinimumWidth(480)
        self.problem = problems[0]
        self.show_problem(problems[0])

    def show_problem(self, problem: ConfigError) -> None:
        self.problem = problem
        self.message.setText(problem.message)
        self.note.setText(consequence(problem))
        self.restore_button.setText(restore_label(problem))

    def restore_default(self) -> None:
        """Rewrite the field shown; show the next problem, or close when none is left."""
        try:
            left = self._restore(self.problem)
        except (ConfigError, OSError) as exc:
            self.note.setText(f"Could not restore the default: {exc}")
            return
        if left:
            self.show_problem(left[0])
        else:
            self.accept()

    def open_settings(self) -> None:
        self.accept()
        self._open_settings()
