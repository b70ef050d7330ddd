"""Lease dialogs: a waiting lease request, and the window-modal dialog that answers it once the user asks.

``LeaseDialogs`` watches the event stream. A ``LeaseRequested`` shows no
window at all: a request arrives on its own, and nothing that arrives on its
own may take the keyboard from a window the user is typing in (a dialog
shown "without activation" was still activated by the platform often enough
to take the next Enter). The request announces itself instead: the flag in
its Ask window (a click on it answers), the process table (Enter or
double-click on its row), the status line, and a desktop notification
(``notify``). Its ``LeaseDialog``, modal to that agent's window only, is
made and brought up only when the user asks: ``ANSWER_SHORTCUT`` from any
window, its row, its flag, or the notification. A ``LeaseRequestResolved``
the dialog did not cause (expired, cancelled) or the agent's kill withdraws
it without granting anything. The dialog offers exactly the kernel's
durations for exactly the scope asked; the answer goes back through the
facade. Its countdown reads the kernel clock on every bridge tick.

Nothing here grants by accident. No button is the dialog's default: Enter
presses the button that has the focus and nothing else, so Tab to Deny and
Enter denies, Tab to "1 hour" and Enter grants an hour. The Settings default
is marked (bold, "(default)") and takes the first focus. Grant buttons
ignore input until ``GRANT_DELAY_MS`` have passed since the dialog came up
and since the user's last keystroke anywhere in the application
(``focus_guard.KeyWatch``), as browsers do for permission prompts
(Firefox's ``security.dialog_enable_delay``, 1000 ms); a typist who keeps
typing cannot get past it. 750 ms covers the next two or three keystrokes
of someone typing at 60 words a minute (about 200 ms apart) and is shorter
than reading the scope and path takes. Held buttons keep their focus (a
disabled button would lose it, and Tab would skip it) and only look and act
held. Esc (Deny) works at once. After an answer the keyboard goes back to
the window and widget where the user was typing (``focus_guard.FocusKeeper``).
"""

from __future__ import annotations

import time
from html import escape

from typing import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QKeyEvent, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QDialog, QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget,
)

from kernel.api import (
    AgentKilled, Decision, Denial, Grant, KernelFacade, LeaseRequest, LeaseRequested, LeaseRequestResolved,
)

from .theme import ERROR, mono_font, shade
from .wording import expiry_text, format_input, grant_choices, highlight_spans, lease_action, lease_title, visible
from .bridge import EventBridge
from .confirm_stop import confirm_stop
from .focus_guard import FocusKeeper, KeyWatch
from .notify import Notifier
from .sizing import available_geometry, fit
from .widgets.diff_view import DiffView

GRANT_DELAY_MS = 750
ANSWER_SHORTCUT = "Ctrl+Shift+A"
DIFF_LINES = 24  # the most diff lines the dialog shows before the diff scrolls (fewer on a small screen)
WindowFor = Callable[[str, bool], QWidget | None]  # (agent id, activate) -> the agent's window
HELD_TIP = "Grant buttons take input a moment after your last keystroke"
ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
PRESS_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space, Qt.Key.Key_Select)
HELD_EVENTS = (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease, QEvent.Type.MouseButtonDblClick)


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
                 grant_delay_ms: int = GRANT_DELAY_MS, clock: Callable[[], float] = time.monotonic,
                 return_focus: FocusKeeper | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self._answer = answer
        self._now = now
        self._clock = clock  # the grant delay's clock (monotonic; tests move their own)
        self._delay = max(0, grant_delay_ms) / 1000
        self._held_at = clock()
        self.return_focus = return_focus  # where the keyboard goes back to after the answer
        self._arm_timer = QTimer(self)  # only redraws the buttons as ready: ``armed`` reads the clock
        self._arm_timer.setSingleShot(True)
        self._arm_timer.timeout.connect(self._show_armed)
        if stop_agent is not None:  # the Ask window is blocked while this is open: Ctrl+. works here too
            QShortcut(QKeySequence("Ctrl+."), self, stop_agent)
        self.answered: Decision | None = None
        self.setWindowTitle(lease_title(request))
        self.setWindowModality(Qt.WindowModality.WindowModal if parent is not None
                               else Qt.WindowModality.NonModal)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
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
        layout.addLayout(self._build_buttons())
        self.countdown_label = QLabel(self)
        layout.addWidget(self.countdown_label)

    def _build_buttons(self) -> QHBoxLayout:
        """One button per duration and Deny; none is the default (Enter presses the focused one), the
        Settings default is bold and takes the first focus."""
        buttons = QHBoxLayout()
        self.grant_buttons: dict[float, QPushButton] = {}
        default_button: QPushButton | None = None
        for choice in grant_choices(self.request):
            button = QPushButton(choice.label, self)
            button.clicked.connect(lambda _=False, s=choice.seconds: self.grant(s))
            button.installEventFilter(self)  # held: it ignores clicks and keys (see ``eventFilter``)
            buttons.addWidget(button)
            self.grant_buttons[choice.seconds] = button
            if choice.is_default:
                default_button = button
        buttons.addStretch(1)
        self.deny_button = QPushButton("Deny", self)
        self.deny_button.clicked.connect(self.deny)
        buttons.addWidget(self.deny_button)
        for button in (*self.grant_buttons.values(), self.deny_button):
            button.setAutoDefault(False)  # no button becomes the default by having the focus either
            button.setDefault(False)
            button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.default_button = default_button or next(iter(self.grant_buttons.values()))
        font = self.default_button.font()
        font.setBold(True)  # marked, beside its "(default)"
        self.default_button.setFont(font)
        self.default_button.setFocus(Qt.FocusReason.OtherFocusReason)
        return buttons

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

    @property
    def armed(self) -> bool:
        """Grant buttons take input: the delay has passed since the dialog came up and the last keystroke."""
        return self._clock() - self._held_at >= self._delay

    def hold_grants(self) -> None:
        """Grant buttons ignore input for the delay, from now (the dialog came up, or the user typed)."""
        self._held_at = self._clock()
        self._show_armed()

    def _show_armed(self) -> None:
        armed = self.armed
        for button in self.grant_buttons.values():
            palette = QPalette(self.palette())
            if not armed:  # looks held, keeps its place in the focus chain
                palette.setColor(QPalette.ColorRole.ButtonText,
                                 self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText))
            button.setPalette(palette)
            button.setToolTip("" if armed else HELD_TIP)
        if not armed:
            left = self._delay - (self._clock() - self._held_at)
            self._arm_timer.start(max(1, int(left * 1000) + 1))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        """A held grant button swallows clicks and the keys that would press it."""
        if watched in self.grant_buttons.values() and not self.armed:
            if event.type() in HELD_EVENTS:
                return True
            if isinstance(event, QKeyEvent) and event.type() in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease) \
                    and event.key() in PRESS_KEYS:
                return True
        return False

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        """Enter presses the button that has the focus, and nothing else (no default button)."""
        if event.key() in ENTER_KEYS:
            focused = self.focusWidget()
            if isinstance(focused, QPushButton) and focused.isEnabled() and \
                    (focused is self.deny_button or self.armed):
                focused.click()
            event.accept()
            return
        super().keyPressEvent(event)

    # ---- answers ----------------------------------------------------------------

    def grant(self, seconds: float) -> None:
        if self.armed:  # the buttons ignore input until then; this guards every other way in
            self._settle(Grant(seconds))

    def deny(self) -> None:
        self._settle(Denial())

    def reject(self) -> None:  # Esc, and the window's close button: Deny
        self._settle(Denial())

    def _settle(self, decision: Decision) -> None:
        if self.answered is None:
            self.answered = decision
            self._answer(decision)
        self._finish(QDialog.DialogCode.Accepted if isinstance(decision, Grant) else QDialog.DialogCode.Rejected)

    def withdraw(self) -> None:
        """The request is over without an answer from here (expired, cancelled, agent killed)."""
        if self.answered is None:
            self.answered = Denial("withdrawn")  # so closing never answers
        self._finish(QDialog.DialogCode.Rejected)

    def _finish(self, code: QDialog.DialogCode) -> None:
        """Close; if the keyboard was here, it goes back to where the user was typing."""
        had_keyboard = self.isActiveWindow()
        keeper = self.return_focus
        super().done(code)
        if had_keyboard and keeper is not None:
            keeper.restore()
            QTimer.singleShot(0, keeper.restore)  # after the platform activates the parent on its own

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
    """Announces waiting lease requests, and makes and brings up their dialogs when the user asks."""

    def __init__(self, kernel: KernelFacade, bridge: EventBridge, window_for: WindowFor,
                 parent: QObject | None = None, grant_delay_ms: int = GRANT_DELAY_MS,
                 clock: Callable[[], float] = time.monotonic,
                 main_window: Callable[[], QWidget | None] = lambda: None) -> None:
        super().__init__(parent)
        self.kernel = kernel
        self._window_for = window_for
        self.grant_delay_ms = grant_delay_ms
        self.clock = clock
        self.waiting: dict[int, LeaseRequest] = {}  # announced, in the order they came; answered or gone: removed
        self.open: dict[int, LeaseDialog] = {}  # brought up by the user
        self.notifier = Notifier(main_window, lambda: self.bring_up(None))
        self.keys = KeyWatch(lambda window: isinstance(window, LeaseDialog), owner=self)
        self.keys.typed.connect(self._typed)
        bridge.event.connect(self._on_event)
        bridge.tick.connect(self._tick)
        for request in kernel.leases.pending():  # asked before this desktop attached
            self.announce(request)

    def _on_event(self, event: object) -> None:
        match event:
            case LeaseRequested(request=request):
                self.announce(request)
            case LeaseRequestResolved(request_id=request_id):
                self._withdraw(request_id)
            case AgentKilled(agent=info):
                for request_id, request in list(self.waiting.items()):
                    if request.agent_id == info.id:
                        self._withdraw(request_id)

    def announce(self, request: LeaseRequest) -> None:
        """A request waits: no window appears; the views flag it, the desktop notification says it."""
        if request.id in self.waiting:
            return
        self.waiting[request.id] = request
        self.notifier.say(request)

    def request_for(self, agent_id: str) -> LeaseRequest | None:
        """The agent's oldest waiting request (brought up or not)."""
        return next((r for r in self.waiting.values() if r.agent_id == agent_id), None)

    def dialog_for(self, agent_id: str) -> LeaseDialog | None:
        """The agent's dialog, if the user brought it up."""
        return next((d for d in self.open.values() if d.request.agent_id == agent_id), None)

    def bring_up(self, agent_id: str | None = None) -> LeaseDialog | None:
        """The user asked: make (or raise) the dialog of the agent's request (None: the oldest waiting),
        give it the keyboard, and start its grant delay."""
        request = self.request_for(agent_id) if agent_id is not None else next(iter(self.waiting.values()), None)
        if request is None:
            return None
        dialog = self.open.get(request.id)
        if dialog is not None and not shiboken6.isValid(dialog):
            self.open.pop(request.id, None)
            dialog = None
        if dialog is None:
            dialog = self._make(request)
        parent = dialog.parentWidget()
        if parent is not None and not parent.isVisible():
            parent.show()
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        dialog.hold_grants()
        return dialog

    def _make(self, request: LeaseRequest) -> LeaseDialog:
        keeper = FocusKeeper()  # where the user was, before anything of the request takes the keyboard
        if isinstance(keeper.window, LeaseDialog):  # answering one dialog from another: go back where they were
            keeper = keeper.window.return_focus or keeper
        parent = self._window_for(request.agent_id, False)
        dialog = LeaseDialog(request, lambda d: self.kernel.leases.resolve(request.id, d), self.kernel.now, parent,
                             stop_agent=lambda: self._confirm_stop(request),
                             grant_delay_ms=self.grant_delay_ms, clock=self.clock, return_focus=keeper)
        dialog.finished.connect(lambda _code, rid=request.id: self._answered(rid))
        dialog.destroyed.connect(lambda _obj=None, rid=request.id: self.open.pop(rid, None))
        self.open[request.id] = dialog
        dialog.open()
        return dialog

    def _confirm_stop(self, request: LeaseRequest) -> None:
        """Ctrl+. in the dialog: ask first, naming the agent (the dialog is the parent: its Ask window is blocked)."""
        dialog = self.open.get(request.id)
        if dialog is not None and shiboken6.isValid(dialog):
            confirm_stop(dialog, request.agent_name, request.agent_id,
                         lambda: self.kernel.agents.kill(request.agent_id))

    def _typed(self) -> None:
        """A keystroke anywhere: every open dialog's grant buttons wait again."""
        for dialog in list(self.open.values()):
            if shiboken6.isValid(dialog):
                dialog.hold_grants()

    def _answered(self, request_id: int) -> None:
        self.open.pop(request_id, None)
        self.waiting.pop(request_id, None)
        self._quiet_if_none()

    def _withdraw(self, request_id: int) -> None:
        self.waiting.pop(request_id, None)
        dialog = self.open.pop(request_id, None)
        if dialog is not None:
            try:
                dialog.withdraw()
            except RuntimeError:  # its window was deleted and took the dialog with it
                pass
        self._quiet_if_none()

    def _quiet_if_none(self) -> None:
        if not self.waiting:
            self.notifier.quiet()

    def _tick(self) -> None:
        for dialog in list(self.open.values()):
            try:
                dialog.update_countdown()
            except RuntimeError:
                self.open = {k: d for k, d in self.open.items() if d is not dialog}

    def close(self) -> None:
        """Stop watching the keyboard (the desktop is closing)."""
        self.keys.stop()
        self.notifier.quiet()
