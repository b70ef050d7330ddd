"""The route of a new agent, chosen in its Ask window before the first message (a disclosure, not a dialog).

Ctrl+N stays one keystroke to a message box: the agent starts at once on
Settings → Models' route. "Route…" (Alt+R, or Tab to it) opens this panel
above the transcript: the model (configured providers only) and its model,
the fallbacks in order, and "Allow another vendor", off, with the sentence
saying what it means. "Start with this route" hands a checked
``RouteChoice`` to the window (``chosen``); the main window then starts the
agent with that route through the kernel's spawn (see
``MainWindow.start_with_route``). The rules live in ``route_choice``.
"""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QFormLayout, QFrame, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget,
)

from kernel.api import Settings

from ..route_choice import ANOTHER_VENDOR, RouteChoice, check_choice, default_words
from ..theme import ERROR, MUTED, mono_font, shade


class RouteForm(QFrame):
    """``chosen(RouteChoice)`` when the person starts the agent with the route shown; ``cancelled`` on Cancel."""

    chosen = Signal(object)
    cancelled = Signal()

    def __init__(self, settings: Settings, usable: Sequence[str], provider: str, model: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("routeForm")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._settings, self._usable = settings, list(usable)
        self.provider = QComboBox(self)
        self.provider.addItems(self._usable)
        self.provider.setToolTip("The providers with a key (or a local server) in Settings \u2192 Providers")
        self.model = QLineEdit(model, self)
        self.model.setFont(mono_font())
        self.model.setAccessibleName("Model")
        self.fallbacks = QLineEdit(self)
        self.fallbacks.setFont(mono_font())
        self.fallbacks.setAccessibleName("Fallbacks")
        self.fallbacks.setToolTip("Models that answer, in order, when this one is overloaded, rate-limited, down "
                                  "or offline: provider:model, separated by commas. Configured: "
                                  + ", ".join(self._usable))
        self.any_vendor = QCheckBox("Allow another &vendor", self)
        self.any_vendor.setToolTip(ANOTHER_VENDOR)
        self.vendor_note = QLabel(ANOTHER_VENDOR, self)
        self.vendor_note.setWordWrap(True)
        self.vendor_note.setStyleSheet(f"color: {shade(MUTED, self.palette())};")
        self.problem = QLabel(self)
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(f"color: {shade(ERROR, self.palette())};")
        self.problem.hide()
        self.start_button = QPushButton("&Start with this route", self)
        self.start_button.setAutoDefault(True)
        self.start_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.clicked.connect(self.cancelled.emit)
        for edit in (self.model, self.fallbacks):
            edit.returnPressed.connect(self.start)

        model_row = QHBoxLayout()
        model_row.addWidget(self.provider)
        model_row.addWidget(self.model, 1)
        vendor_row = QHBoxLayout()
        vendor_row.addWidget(self.any_vendor)
        vendor_row.addWidget(self.vendor_note, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.problem, 1)
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.cancel_button)
        form = QFormLayout(self)
        form.setContentsMargins(8, 4, 8, 4)
        form.setVerticalSpacing(4)
        form.addRow("Model", model_row)
        form.addRow("Fallbacks", self.fallbacks)
        form.addRow("", vendor_row)
        form.addRow(buttons)
        if provider in self._usable:
            self.provider.setCurrentText(provider)
        self.provider.currentTextChanged.connect(self._provider_changed)
        self.any_vendor.toggled.connect(lambda _on: self._show_default())
        self._show_default()

    def _provider_changed(self, provider: str) -> None:
        self.model.setText(self._settings.model_for(provider))
        self._show_default()

    def _show_default(self) -> None:
        provider = self.provider.currentText()
        allowed = self.any_vendor.isChecked() or self._settings.fallback_any_vendor
        self.fallbacks.setPlaceholderText(default_words(provider, self._settings.fallbacks_for(provider), allowed))

    def start(self) -> None:
        """Check the route and hand it over, or say what is wrong."""
        choice = check_choice(self.provider.currentText(), self.model.text(), self.fallbacks.text(),
                              self.any_vendor.isChecked(), self._usable)
        if isinstance(choice, str):
            self.refused(choice)
            return
        self.problem.hide()
        self.chosen.emit(choice)

    def refused(self, why: str) -> None:
        """The route cannot be used (here, or the kernel said so): the reason, in the form."""
        self.problem.setText(why)
        self.problem.setToolTip(why)
        self.problem.show()

    def focus_first(self) -> None:
        self.provider.setFocus(Qt.FocusReason.OtherFocusReason)


__all__ = ["RouteChoice", "RouteForm"]
