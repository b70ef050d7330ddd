"""Lease dialogs: one window-modal dialog per open lease request, on the asking agent's window.

``LeaseDialogs`` watches the event stream: a ``LeaseRequested`` opens a
``LeaseDialog`` modal to that agent's window only (every other window keeps
working); a ``LeaseRequestResolved`` that the dialog did not cause (expired,
cancelled) or the agent's kill closes it without granting anything. The
dialog offers exactly the kernel's durations for exactly the scope asked; the
answer goes back through ``Kernel.resolve_request``. Its countdown reads the
kernel clock on every bridge tick, so tests drive it with a manual clock.

Nothing here grants by accident. A request arrives on its own, so its dialog
does not take the keyboard from a window the user is typing in: unless the
asking agent's own window is the active one, the dialog is shown without
activation (and, on platforms that activate new windows anyway, such as
offscreen Qt and X without a window manager, the keyboard is handed straight
back). It then waits to be brought up: with ``ANSWER_SHORTCUT`` from any
window, Enter on its row of the process table, or by activating its Ask
window. Each time the dialog becomes the active window its grant buttons
ignore input for ``GRANT_DELAY_MS``, as browsers do for permission prompts
(Firefox's ``security.dialog_enable_delay``, 1000 ms). 750 ms is chosen
because it covers the next two or three keystrokes of someone typing at
60 words a minute (about 200 ms apart) and is shorter than reading the
scope and path takes; Esc (Deny) works at once. The first focus is on the
diff (or the dialog itself), never on a button, so a stray Space presses nothing.
"""

from __future__ import annotations

from html import escape

from typing import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication, QDialog, QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget,
)

from kernel.api import (
    AgentKilled, Decision, Denial, Grant, KernelFacade, LeaseRequest, LeaseRequested, LeaseRequestResolved,
)

from .theme import ERROR, mono_font, shade
from .wording import expiry_text, format_input, grant_choices, highlight_spans, lease_action, lease_title, visible
from .bridge import EventBridge
from .sizing import available_geometry, fit
from .widgets.diff_view import DiffView

GRANT_DELAY_MS = 750
ANSWER_SHORTCUT = "Ctrl+Shift+A"
DIFF_LINES = 24  # the most diff lines the dialog shows before the diff scrolls (fewer on a small screen)
WindowFor = Callable[[str, bool], QWidget | None]  # (agent id, activate) -> the agent's window



def plain_label(text: str, parent: QWidget) -> QLabel:
    """A label that shows ``text`` exactly as written: what a model sent is never read as markup, so no
    tag or comment in a command can hide part of it from the person granting the lease."""
    label = QLabel(visible(text), parent)  # nor can a bidi override reorder it (wording.visible)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


HIGHLIGHT_STYLE = "background-color: #ffd84d; color: #000000; font-weight: bold;"


def highlighted_html(text: str, pieces: tuple[str, ...]) -> str:
    """``text`` as escaped HTML, keeping its lines and spaces, with ``pieces`` marked (never read as markup)."""
    out = []
    for part, marked in highlight_spans(text, pieces):
        safe = escape(part).replace("\n", "<br>").replace("  ", " &nbsp;")
        out.append(f"<span style='{HIGHLIGHT_STYLE}'>{safe}</span>" if marked else safe)
    return "<div style='white-space: pre-wrap'>" + "".join(out) + "</div>"


class LeaseDialog(QDialog):
    def __init__(self, request: LeaseRequest, answer: Callable[[Decision], object], now: Callable[[], float],
                 parent: QWidget | None = None, stop_agent: Callable[[], object] | None = None,
                 grant_delay_ms: int = GRANT_DELAY_MS) -> None:
        super().__init__(parent)
        self.request = request
        self._answer = answer
        self._now = now
        self.armed = False  # grant buttons take input only once armed
        self._arm_timer = QTimer(self)
        self._arm_timer.setSingleShot(True)
        self._arm_timer.setInterval(max(0, grant_delay_ms))
        self._arm_timer.timeout.connect(self._arm)
        if stop_agent is not None:  # the Ask window is blocked while this is open: Ctrl+. works here too
            QShortcut(QKeySequence("Ctrl+."), self, stop_agent)
        self.answered: Decision | None = None
        self.setWindowTitle(lease_title(request))
        self.setWindowModality(Qt.WindowModality.WindowModal if parent is not None
                               else Qt.WindowModality.NonModal)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the dialog itself can hold the first focus
        self._build()
        self.hold_grants()
        self.update_countdown()
        self.fit_screen()

    def _build(self) -> None:
        req = self.request
        title = QLabel(f"<b>{escape(lease_title(req))}</b>", self)
        # A label, not a read-only field: nothing about the scope looks editable.
        self.scope_field = plain_label(req.scope, self)
        self.scope_field.setFont(mono_font())
        self.scope_field.setObjectName("scope")
        self.scope_field.setStyleSheet("QLabel#scope { font-weight: bold; border: 1px solid palette(mid);"
                                       " border-radius: 4px; padding: 2px 8px; }")
        self.action_label = plain_label(lease_action(req), self)
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
            summary = plain_label(preview.summary, self)
            summary.setWordWrap(True)
            layout.addWidget(summary)
        self.diff_view: DiffView | None = None
        if preview is not None and preview.diff:
            message = preview.path is None  # an outward call's exact message or event, not a file diff
            layout.addWidget(QLabel("Exactly what will be sent" if message else "Diff preview", self))
            self.diff_view = DiffView(preview.diff, max_lines=DIFF_LINES, parent=self, shrink=True, plain=message)
            layout.addWidget(self.diff_view, 1)  # the one part that gives way on a small screen
        err = shade(ERROR, self.palette())
        for note in req.notes:
            label = plain_label(f"\u26a0 {note}", self)
            label.setWordWrap(True)
            label.setStyleSheet(f"color: {err};")
            layout.addWidget(label)
        self.arguments_view: QTextBrowser | None = None
        self.flag_labels: list[QLabel] = []
        if req.once:
            self._build_confirmation(layout, err)
            self.grant_label = QLabel("Allow this one call? No lease covers it: the next call asks again.", self)
        else:
            self.grant_label = QLabel(f"Grant <span style='font-family:monospace'>{escape(req.scope)}</span> for:",
                                      self)
        layout.addWidget(self.grant_label)
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
        (self.diff_view or self.arguments_view or self).setFocus()  # never a button: a stray Space must press nothing

    def _build_confirmation(self, layout: QVBoxLayout, err: str) -> None:
        """Why a tainted agent's outward call (or a ``confirm`` scope) asks every time, its arguments with
        the pieces copied from untrusted content highlighted, and what looks like an injection."""
        req = self.request
        self.reason_label = plain_label(f"Asks every time: {req.reason}", self)
        self.reason_label.setWordWrap(True)
        self.reason_label.setObjectName("confirmReason")
        self.reason_label.setStyleSheet(f"QLabel#confirmReason {{ border: 1px solid {err}; border-radius: 4px;"
                                        " padding: 4px 8px; }")
        layout.addWidget(self.reason_label)
        self.detail_label: QLabel | None = None
        if req.detail:  # the whole act in words (automation_create: the definition it would store)
            self.detail_label = plain_label("\n".join(req.detail), self)
            self.detail_label.setObjectName("confirmDetail")
            self.detail_label.setWordWrap(True)
            self.detail_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(self.detail_label)
        for flag in req.flags:
            label = plain_label(f"\u26a0 {flag}", self)
            label.setWordWrap(True)
            label.setStyleSheet(f"color: {err}; font-weight: bold;")
            layout.addWidget(label)
            self.flag_labels.append(label)
        layout.addWidget(QLabel("Arguments" + (" (highlighted: copied from untrusted content)"
                                               if req.highlights else ""), self))
        self.arguments_view = QTextBrowser(self)
        self.arguments_view.setObjectName("arguments")
        self.arguments_view.setOpenLinks(False)
        self.arguments_view.setFont(mono_font())
        self.arguments_view.setHtml(highlighted_html(format_input(req.input), req.highlights))
        lines = min(DIFF_LINES, max(2, format_input(req.input).count("\n") + 2))
        self.arguments_view.setMinimumHeight(self.fontMetrics().lineSpacing() * 2 + 12)
        self.arguments_view.setMaximumHeight(self.fontMetrics().lineSpacing() * lines + 16)
        layout.addWidget(self.arguments_view, 1)

    def fit_screen(self) -> None:
        """As big as its contents want, within the screen; the diff is what shrinks."""
        area = available_geometry(self.parentWidget() or self)
        hint = self.sizeHint()
        self.setMaximumHeight(max(240, area.height() - 48))
        w, h = fit((max(620, hint.width()), hint.height()), (area.width(), area.height()))
        self.resize(w, h)

    # ---- the grant delay -----------------------------------------------------------

    def hold_grants(self) -> None:
        """Grant buttons ignore input for the delay, starting now (each time the dialog comes up)."""
        self.armed = False
        for button in self.grant_buttons.values():
            button.setEnabled(False)
        if self._arm_timer.interval() <= 0:
            self._arm()
        else:
            self._arm_timer.start()

    def _arm(self) -> None:
        self._arm_timer.stop()
        self.armed = True
        for button in self.grant_buttons.values():
            button.setEnabled(True)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self.hold_grants()
        super().changeEvent(event)

    # ---- answers ----------------------------------------------------------------

    def grant(self, seconds: float) -> None:
        if self.armed:  # the buttons are disabled until then; this guards every other way in
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


class FocusKeeper:
    """Where the keyboard was before something appeared on its own, and a way to hand it back."""

    def __init__(self) -> None:
        self.window = QApplication.activeWindow()
        self.widget = QApplication.focusWidget()

    def restore(self) -> None:
        window, widget = self.window, self.widget
        if window is None or not shiboken6.isValid(window) or not window.isVisible():
            return
        if QApplication.activeWindow() is not window:
            window.activateWindow()
        if widget is not None and shiboken6.isValid(widget) and QApplication.focusWidget() is not widget:
            widget.setFocus(Qt.FocusReason.ActiveWindowFocusReason)


class LeaseDialogs(QObject):
    """Opens and closes lease dialogs from the event stream, and brings them up when asked."""

    def __init__(self, kernel: KernelFacade, bridge: EventBridge, window_for: WindowFor,
                 parent: QObject | None = None, grant_delay_ms: int = GRANT_DELAY_MS) -> None:
        super().__init__(parent)
        self.kernel = kernel
        self._window_for = window_for
        self.grant_delay_ms = grant_delay_ms
        self.open: dict[int, LeaseDialog] = {}
        self.waiting_to_come_up: set[int] = set()  # shown without the keyboard, not yet brought up
        self._settling: set[int] = set()  # shown this pass: their window's activation is the platform's, not the user's
        bridge.event.connect(self._on_event)
        bridge.tick.connect(self._tick)
        for request in kernel.leases.pending():  # asked before this desktop attached
            self.show(request)

    def _on_event(self, event: object) -> None:
        match event:
            case LeaseRequested(request=request):
                self.show(request)
            case LeaseRequestResolved(request_id=request_id):
                self._withdraw(request_id)
            case AgentKilled(agent=info):
                for request_id, dialog in list(self.open.items()):
                    if dialog.request.agent_id == info.id:
                        self._withdraw(request_id)

    def show(self, request: LeaseRequest) -> LeaseDialog:
        """Open the request's dialog; it takes the keyboard only from its own agent's window."""
        keeper = FocusKeeper()
        parent = self._window_for(request.agent_id, False)
        quiet = parent is None or keeper.window is not parent
        now = self.kernel.now
        dialog = LeaseDialog(request, lambda d: self.kernel.leases.resolve(request.id, d), now, parent,
                             stop_agent=lambda: self.kernel.agents.kill(request.agent_id),
                             grant_delay_ms=self.grant_delay_ms)
        dialog.finished.connect(lambda _code, rid=request.id: self._forget(rid))
        dialog.destroyed.connect(lambda _obj=None, rid=request.id: self._forget(rid))
        self.open[request.id] = dialog
        if quiet:
            dialog.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
            self.waiting_to_come_up.add(request.id)
        dialog.open()
        if quiet:
            self._settling.add(request.id)
            keeper.restore()
            QTimer.singleShot(0, lambda rid=request.id: self._settled(rid, keeper))  # platforms that activate later
        if parent is not None:
            parent.installEventFilter(self)  # activating the agent's window brings its dialog up
        return dialog

    def dialog_for(self, agent_id: str) -> LeaseDialog | None:
        return next((d for d in self.open.values() if d.request.agent_id == agent_id), None)

    @property
    def settling(self) -> bool:
        """A dialog has just appeared and the focus the platform gave it is still being handed back."""
        return bool(self._settling)

    def bring_up(self, agent_id: str | None = None) -> LeaseDialog | None:
        """Raise and activate the agent's dialog (or the oldest open one); its grant delay starts again."""
        dialog = self.dialog_for(agent_id) if agent_id is not None else \
            next(iter(sorted(self.open.items())), (0, None))[1]
        if dialog is None or not shiboken6.isValid(dialog):
            return None
        self.waiting_to_come_up.discard(dialog.request.id)
        dialog.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, False)
        parent = dialog.parentWidget()
        if parent is not None and not parent.isVisible():
            parent.show()
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        dialog.hold_grants()
        return dialog

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.WindowActivate:
            for dialog in list(self.open.values()):
                if shiboken6.isValid(dialog) and dialog.parentWidget() is watched and \
                        dialog.request.id not in self._settling:
                    QTimer.singleShot(0, lambda aid=dialog.request.agent_id: self.bring_up(aid))
                    break
        return False

    def _settled(self, request_id: int, keeper: FocusKeeper) -> None:
        keeper.restore()
        self._settling.discard(request_id)

    def _forget(self, request_id: int) -> None:
        self.open.pop(request_id, None)
        self.waiting_to_come_up.discard(request_id)

    def _withdraw(self, request_id: int) -> None:
        dialog = self.open.pop(request_id, None)
        self.waiting_to_come_up.discard(request_id)
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
