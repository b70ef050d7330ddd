"""An MCP server's question for the user (elicitation), answered in a dialog the user brings up.

A question arrives on its own, mid-call, so it follows the lease dialogs' focus rules (``lease_dialog``):
``McpQuestionAsked`` shows no window. It announces itself instead (the status line, the task bar's
urgency hint) and waits until the user asks for it with the same shortcut that answers lease requests
(Ctrl+Shift+A tries a lease request first, then a question). Its ``QuestionDialog``, modal to the
agent's Ask window only, shows the server's message and its form with the server's defaults filled in;
Accept sends the form, Decline and Esc decline, Cancel cancels. Accept ignores input until
``GRANT_DELAY_MS`` after the dialog came up and after the last keystroke anywhere
(``focus_guard.KeyWatch``), so a keystroke meant for another window cannot send anything. A URL
question shows the address and opens it in the browser only when the user presses "Open in browser".
Everything shown is the server's text, as plain text. The answer goes back through the facade.
"""

from __future__ import annotations

import time
from typing import Callable

import shiboken6
from PySide6.QtCore import QObject, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QKeyEvent
from PySide6.QtWidgets import (
    QApplication, QCheckBox, QComboBox, QDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton,
    QVBoxLayout, QWidget,
)

from kernel.api import AgentKilled, ElicitField, ElicitQuestion, KernelFacade, McpQuestionAsked, McpQuestionClosed

from .bridge import EventBridge
from .focus_guard import FocusKeeper, KeyWatch
from .lease_dialog import ANSWER_SHORTCUT, GRANT_DELAY_MS, plain_label
from .wording import visible

Value = str | int | float | bool | list[str] | None
Answer = Callable[[str, dict[str, Value]], object]  # (action, content)


def _open_url(url: str) -> bool:
    return QDesktopServices.openUrl(QUrl(url))


class QuestionDialog(QDialog):
    def __init__(self, question: ElicitQuestion, answer: Answer, parent: QWidget | None = None, *,
                 hold_ms: int = GRANT_DELAY_MS, clock: Callable[[], float] = time.monotonic,
                 open_url: Callable[[str], bool] = _open_url, return_focus: FocusKeeper | None = None) -> None:
        super().__init__(parent)
        self.question = question
        self._answer = answer
        self._clock = clock
        self._hold_ms = hold_ms
        self._held_until = 0.0
        self._open_url = open_url
        self.return_focus = return_focus
        self.answered: str | None = None
        self.inputs: dict[str, QWidget] = {}
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setWindowTitle(f"The MCP server {visible(question.server)} asks you")
        self._build()

    def _build(self) -> None:
        q = self.question
        layout = QVBoxLayout(self)
        who = f"{q.agent_name or q.agent_id} ({q.agent_id})" if q.agent_id else "an agent"
        # the server's words, with what would reorder or hide them shown as escapes (a title reversed by a
        # bidi override could pass for another choice; a URL for another host)
        layout.addWidget(plain_label(f"The MCP server {visible(q.server)} asks, during a call by {who}:", self))
        message = plain_label(visible(q.message), self)
        message.setWordWrap(True)
        layout.addWidget(message)
        if q.url is not None:
            link = plain_label(visible(q.url), self)
            link.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(link)
        else:
            form = QFormLayout()
            for spec in q.fields:
                widget = _input_for(spec, self)
                self.inputs[spec.name] = widget
                form.addRow(plain_label(visible(spec.title or spec.name) + (" *" if spec.required else ""), self),
                            widget)
            layout.addLayout(form)
        layout.addWidget(QLabel("The model never sees this question or your answer.", self))
        row = QHBoxLayout()
        self.accept_button = QPushButton("Open in browser" if q.url is not None else "Accept", self)
        self.decline_button = QPushButton("Decline", self)
        self.cancel_button = QPushButton("Cancel", self)
        for button in (self.accept_button, self.decline_button, self.cancel_button):
            button.setAutoDefault(False)
            row.addWidget(button)
        self.accept_button.clicked.connect(self.send)
        self.decline_button.clicked.connect(lambda: self._settle("decline", {}))
        self.cancel_button.clicked.connect(lambda: self._settle("cancel", {}))
        layout.addLayout(row)
        self.problem = QLabel("", self)
        layout.addWidget(self.problem)

    def hold(self) -> None:
        """Accept waits ``hold_ms`` from now (the dialog came up, or the user typed somewhere)."""
        self._held_until = self._clock() + self._hold_ms / 1000

    @property
    def armed(self) -> bool:
        return self._clock() >= self._held_until

    def send(self) -> None:
        """Accept: the form's values (or, for a URL, open it in the browser), unless Accept is still held."""
        if not self.armed:
            return
        if self.question.url is not None:
            if not self._open_url(self.question.url):
                self.problem.setText("Could not open a browser: open the address above yourself.")
            self._settle("accept", {})
            return
        values: dict[str, Value] = {}
        for spec in self.question.fields:
            value = _value_of(spec, self.inputs[spec.name])
            if value is None and spec.required:
                self.problem.setText(f"{spec.title or spec.name} is needed, as a {spec.kind}.")
                return
            if value is not None:
                values[spec.name] = value
        self._settle("accept", values)

    def reject(self) -> None:  # Esc and the close button: Decline
        self._settle("decline", {})

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.focusWidget() is not self.accept_button:
            button = self.focusWidget()
            if isinstance(button, QPushButton):
                button.click()
            return  # Enter never sends the form from a field
        super().keyPressEvent(event)

    def _settle(self, action: str, content: dict[str, Value]) -> None:
        if self.answered is None:
            self.answered = action
            self._answer(action, content)
        self.withdraw()

    def withdraw(self) -> None:
        """Close without answering (answered elsewhere, or the call ended); the keyboard goes back."""
        self.done(QDialog.DialogCode.Rejected if self.answered != "accept" else QDialog.DialogCode.Accepted)
        if self.return_focus is not None:
            self.return_focus.restore()


def _input_for(spec: ElicitField, parent: QWidget) -> QWidget:
    if spec.kind == "boolean":
        box = QCheckBox(parent)
        box.setChecked(spec.default is True)
        return box
    if spec.choices and spec.kind != "array":
        combo = QComboBox(parent)
        for value in spec.choices:  # shown by title, answered by value
            combo.addItem(visible(spec.choice_label(value)), value)
        if isinstance(spec.default, str) and spec.default in spec.choices:
            combo.setCurrentIndex(spec.choices.index(spec.default))
        return combo
    line = QLineEdit(parent)
    default = spec.default
    line.setText(", ".join(default) if isinstance(default, list) else "" if default is None else str(default))
    return line


def _value_of(spec: ElicitField, widget: QWidget) -> Value:
    if isinstance(widget, QCheckBox):
        return widget.isChecked()
    if isinstance(widget, QComboBox):
        value = widget.currentData()
        return value if isinstance(value, str) else widget.currentText()
    assert isinstance(widget, QLineEdit)
    text = widget.text().strip()
    if not text:
        return None
    if spec.kind in ("integer", "number"):
        try:
            return int(text) if spec.kind == "integer" else float(text)
        except ValueError:
            return None
    if spec.kind == "array":
        return [t.strip() for t in text.split(",") if t.strip()]
    return text


class QuestionDialogs(QObject):
    """Announces waiting questions, and makes and brings up their dialogs when the user asks."""

    def __init__(self, kernel: KernelFacade, bridge: EventBridge, window_for: Callable[[str, bool], QWidget | None],
                 main_window: Callable[[], QWidget | None] = lambda: None, parent: QObject | None = None,
                 hold_ms: int = GRANT_DELAY_MS, clock: Callable[[], float] = time.monotonic,
                 open_url: Callable[[str], bool] = _open_url) -> None:
        super().__init__(parent)
        self.kernel = kernel
        self._window_for = window_for
        self._main_window = main_window
        self._hold_ms = hold_ms
        self._clock = clock
        self._open_url = open_url
        self.waiting: dict[int, ElicitQuestion] = {}
        self.open: dict[int, QuestionDialog] = {}
        self.keys = KeyWatch(lambda window: isinstance(window, QuestionDialog), owner=self)
        self.keys.typed.connect(self._typed)
        bridge.event.connect(self._on_event)
        for question in kernel.extensions.questions():  # asked before this desktop attached
            self.announce(question)

    def _on_event(self, event: object) -> None:
        match event:
            case McpQuestionAsked(question=question):
                self.announce(question)
            case McpQuestionClosed(question_id=question_id):
                self._withdraw(question_id)
            case AgentKilled(agent=info):
                for question_id, question in list(self.waiting.items()):
                    if question.agent_id == info.id:
                        self._withdraw(question_id)

    def announce(self, question: ElicitQuestion) -> None:
        """A question waits: no window appears; the status line says it, the task bar marks the window."""
        if question.id in self.waiting:
            return
        self.waiting[question.id] = question
        window = self._main_window()
        if window is not None and window.isVisible():
            QApplication.alert(window)
            status = getattr(window, "statusBar", None)
            if callable(status):
                status().showMessage(f"The MCP server {question.server} asks you something for "
                                     f"{question.agent_name or question.agent_id} \u00b7 {ANSWER_SHORTCUT} answers")

    def bring_up(self, agent_id: str | None = None) -> QuestionDialog | None:
        """The user asked: the dialog of the agent's oldest question (None: the oldest of all), with the keyboard."""
        question = next((q for q in self.waiting.values() if agent_id is None or q.agent_id == agent_id), None)
        if question is None:
            return None
        dialog = self.open.get(question.id)
        if dialog is None or not shiboken6.isValid(dialog):
            dialog = self._make(question)
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        dialog.hold()
        return dialog

    def _make(self, question: ElicitQuestion) -> QuestionDialog:
        keeper = FocusKeeper()
        parent = self._window_for(question.agent_id, False) if question.agent_id else None

        def answer(action: str, content: dict[str, Value]) -> object:
            return self.kernel.extensions.answer_question(question.id, action, content)

        dialog = QuestionDialog(question, answer, parent, hold_ms=self._hold_ms, clock=self._clock,
                                open_url=self._open_url, return_focus=keeper)
        dialog.finished.connect(lambda _code, qid=question.id: self._answered(qid))
        self.open[question.id] = dialog
        dialog.open()
        return dialog

    def _typed(self) -> None:
        for dialog in list(self.open.values()):
            if shiboken6.isValid(dialog):
                dialog.hold()

    def _answered(self, question_id: int) -> None:
        self.open.pop(question_id, None)
        self.waiting.pop(question_id, None)

    def _withdraw(self, question_id: int) -> None:
        self.waiting.pop(question_id, None)
        dialog = self.open.pop(question_id, None)
        if dialog is not None and shiboken6.isValid(dialog):
            dialog.withdraw()

    def close(self) -> None:
        self.keys.stop()
