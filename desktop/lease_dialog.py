"""Lease dialogs: one window-modal dialog per open lease request, on the asking agent's window.

``LeaseDialogs`` watches the event stream: a ``PermissionRequested`` opens a
``LeaseDialog`` modal to that agent's window only (every other window keeps
working); a ``PermissionResolved`` that the dialog did not cause (expired,
cancelled) or the agent's kill closes it without granting anything. The
dialog offers exactly the kernel's durations for exactly the scope asked; the
answer goes back through ``Kernel.resolve_request``. Its countdown reads the
kernel clock on every bridge tick, so tests drive it with a manual clock.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget,
)

from kernel.approver import Decision, Denial, Grant, LeaseRequest
from kernel.events import AgentKilled, PermissionRequested, PermissionResolved
from kernel.facade import Kernel

from .ask_style import ERROR, mono_font, shade
from .ask_text import expiry_text, grant_choices, lease_action, lease_title
from .bridge import EventBridge
from .widgets.diff_view import DiffView


class LeaseDialog(QDialog):
    def __init__(self, request: LeaseRequest, answer: Callable[[Decision], None], now: Callable[[], float],
                 parent: QWidget | None = None, stop_agent: Callable[[], None] | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self._answer = answer
        self._now = now
        if stop_agent is not None:  # the Ask window is blocked while this is open: Ctrl+. works here too
            QShortcut(QKeySequence("Ctrl+."), self, stop_agent)
        self.answered: Decision | None = None
        self.setWindowTitle(lease_title(request))
        self.setWindowModality(Qt.WindowModality.WindowModal if parent is not None
                               else Qt.WindowModality.NonModal)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setMinimumWidth(620)
        self._build()
        self.update_countdown()

    def _build(self) -> None:
        req = self.request
        title = QLabel(f"<b>{lease_title(req)}</b>", self)
        # A label, not a read-only field: nothing about the scope looks editable.
        self.scope_field = QLabel(req.scope, self)
        self.scope_field.setFont(mono_font())
        self.scope_field.setObjectName("scope")
        self.scope_field.setStyleSheet("QLabel#scope { font-weight: bold; border: 1px solid palette(mid);"
                                       " border-radius: 4px; padding: 2px 8px; }")
        self.action_label = QLabel(lease_action(req), self)
        self.action_label.setWordWrap(True)
        what = QHBoxLayout()
        what.addWidget(self.scope_field)
        what.addWidget(self.action_label, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addLayout(what)
        preview = req.preview
        if preview is not None and preview.summary:
            summary = QLabel(preview.summary, self)
            summary.setWordWrap(True)
            layout.addWidget(summary)
        self.diff_view: DiffView | None = None
        if preview is not None and preview.diff:
            layout.addWidget(QLabel("Diff preview", self))
            self.diff_view = DiffView(preview.diff, max_lines=16, parent=self)
            layout.addWidget(self.diff_view)
        err = shade(ERROR, self.palette())
        for note in req.notes:
            label = QLabel(f"\u26a0 {note}", self)
            label.setWordWrap(True)
            label.setStyleSheet(f"color: {err};")
            layout.addWidget(label)

        layout.addWidget(QLabel(f"Grant <span style='font-family:monospace'>{req.scope}</span> for:", self))
        buttons = QHBoxLayout()
        self.grant_buttons: dict[float, QPushButton] = {}
        default_button: QPushButton | None = None
        for choice in grant_choices(req):
            button = QPushButton(choice.label, self)
            button.setAutoDefault(False)
            button.clicked.connect(lambda _=False, s=choice.seconds: self.grant(s))
            buttons.addWidget(button)
            self.grant_buttons[choice.seconds] = button
            if choice.is_default:
                default_button = button
        buttons.addStretch(1)
        self.deny_button = QPushButton("Deny", self)
        self.deny_button.setAutoDefault(False)
        self.deny_button.clicked.connect(self.deny)
        buttons.addWidget(self.deny_button)
        layout.addLayout(buttons)
        self.countdown_label = QLabel(self)
        layout.addWidget(self.countdown_label)
        self.default_button = default_button or next(iter(self.grant_buttons.values()))
        self.default_button.setDefault(True)
        self.default_button.setFocus()

    # ---- answers ----------------------------------------------------------------

    def grant(self, seconds: float) -> None:
        self._settle(Grant(seconds))

    def deny(self) -> None:
        self._settle(Denial())

    def reject(self) -> None:  # Esc, and the window's close button: Deny
        self._settle(Denial())

    def _settle(self, decision: Decision) -> None:
        if self.answered is None:
            self.answered = decision
            self._answer(decision)
        super().done(QDialog.DialogCode.Accepted if isinstance(decision, Grant) else QDialog.DialogCode.Rejected)

    def withdraw(self) -> None:
        """The request is over without an answer from here (expired, cancelled, agent killed)."""
        if self.answered is None:
            self.answered = Denial("withdrawn")  # so closing never answers
        super().done(QDialog.DialogCode.Rejected)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.answered is None:
            self.answered = Denial()
            self._answer(self.answered)
        super().closeEvent(event)

    # ---- time -------------------------------------------------------------------

    def seconds_left(self) -> float:
        return self.request.expires_at - self._now()

    def update_countdown(self) -> None:
        self.countdown_label.setText(expiry_text(self.seconds_left()))


class LeaseDialogs(QObject):
    """Opens and closes lease dialogs from the event stream."""

    def __init__(self, kernel: Kernel, bridge: EventBridge, window_for: Callable[[str], QWidget | None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.kernel = kernel
        self._window_for = window_for
        self.open: dict[int, LeaseDialog] = {}
        bridge.event.connect(self._on_event)
        bridge.tick.connect(self._tick)
        for request in kernel.pending_requests():  # asked before this desktop attached
            self.show(request)

    def _on_event(self, event: object) -> None:
        match event:
            case PermissionRequested(request=request):
                self.show(request)
            case PermissionResolved(request_id=request_id):
                self._withdraw(request_id)
            case AgentKilled(agent=info):
                for request_id, dialog in list(self.open.items()):
                    if dialog.request.agent_id == info.id:
                        self._withdraw(request_id)

    def show(self, request: LeaseRequest) -> LeaseDialog:
        now = self.kernel.now
        parent = self._window_for(request.agent_id)
        dialog = LeaseDialog(request, lambda d: self.kernel.resolve_request(request.id, d), now, parent,
                             stop_agent=lambda: self.kernel.kill(request.agent_id))
        dialog.finished.connect(lambda _code, rid=request.id: self.open.pop(rid, None))
        dialog.destroyed.connect(lambda _obj=None, rid=request.id: self.open.pop(rid, None))
        self.open[request.id] = dialog
        dialog.open()
        return dialog

    def dialog_for(self, agent_id: str) -> LeaseDialog | None:
        return next((d for d in self.open.values() if d.request.agent_id == agent_id), None)

    def _withdraw(self, request_id: int) -> None:
        dialog = self.open.pop(request_id, None)
        if dialog is not None:
            try:
                dialog.withdraw()
            except RuntimeError:  # its window was deleted and took the dialog with it
                pass

    def _tick(self) -> None:
        for dialog in list(self.open.values()):
            try:
                dialog.update_countdown()
            except RuntimeError:
                self.open = {k: d for k, d in self.open.items() if d is not dialog}
