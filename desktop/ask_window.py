"""The Ask window: one agent's conversation, state, budget and controls.

A thin view of the kernel: everything it shows comes from the facade (a
snapshot when it opens) and the event stream (every change after), and every
button is one facade call. The words it shows come from ``wording``; the
conversation's widgets live in ``widgets.transcript``. It never blocks: the
budget prompt is window-modal and opened, not executed.

It opens with the keyboard in its message box (so a first Space types, it
does not press Pause), says which provider and model the agent talks to,
and while a lease request waits it says so and how to answer (its dialog
does not take the keyboard on its own: see ``lease_dialog``). A killed
agent's window says how to go on.
"""

from __future__ import annotations

import asyncio
import base64
import html
from typing import Callable, Sequence

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication, QFrame, QHBoxLayout, QInputDialog, QLabel, QMessageBox, QPushButton, QVBoxLayout, QWidget,
)

from kernel.api import (
    AgentState,
    AgentInfo, AgentKilled, AgentSpawned, AgentStateChanged, KernelError, KernelFacade, LeaseRequest,
    LeaseRequested, LeaseRequestResolved, TextDelta, ToolCallFinished, ToolCallStarted, TurnFinished, UsageUpdated,
    UnknownAgent, UserMessage, money,
)
from kernel.api import AgentTainted, ImagePart
from kernel.api import ToolProgress  # an MCP server's progress on a running call (issue 29)
from kernel.api import Compaction, LedgerAppended, answered_by  # routes (25), the context engine (24)
from kernel.api import PROVIDERS

from .theme import ERROR, MUTED, STATES, mono_font, shade
from .wording import lease_waiting_text, relative_diff, taint_text
from .bridge import EventBridge
from .budget_dialog import open_raise_budget
from .confirm_stop import confirm_stop as ask_to_stop
from .lease_dialog import ANSWER_SHORTCUT
from .mcp_context import McpContext, is_prompt_command
from .sizing import fit_to_screen
from .widgets.budget_bar import BudgetBar
from .widgets.attachments import AttachmentStrip, Pending
from .widgets.flag_label import FlagLabel
from .widgets.message_input import MessageInput
from .route_choice import configured
from .widgets.route_form import RouteForm
from .widgets.state_badge import StateBadge
from .widgets.tool_card import PICTURE_THUMB
from .widgets.transcript import Transcript

DETACHED_WORDS = ("The kernel is not reachable (it stopped or is restarting); the desktop reconnects by itself. "
                  "What you type stays here to send once it is back.")
ROUTE_SHORTCUT = "Alt+R"  # the route form of a new agent (a mnemonic is not shown on every platform)
STOPPED_PLACEHOLDER = "This agent was stopped and takes no more messages. Ctrl+N starts a new agent to continue."


class AskWindow(QWidget):
    """Closing it closes the view, never the agent: it keeps working and its row in the process
    table reopens the window (``view_closed`` tells the main window, which remembers open windows)."""

    view_closed = Signal(str)
    answer_requested = Signal(str)  # the user clicked the waiting-request flag: bring its dialog up
    route_chosen = Signal(str, object)  # (agent id, RouteChoice): start the agent anew on that route

    def __init__(self, kernel: KernelFacade, agent_id: str, bridge: EventBridge, open_settings: Callable[[], object],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.kernel, self.agent_id, self.bridge = kernel, agent_id, bridge
        self._open_settings = open_settings
        self.info: AgentInfo = kernel.agents.get(agent_id)
        self.raise_dialog: QInputDialog | None = None
        self.detached = False  # the kernel went away (``detach``) and has not come back yet
        self._sent = False  # a message went and the kernel has not yet said the agent works on it
        self.setWindowTitle(f"{self.info.name} \u00b7 {agent_id}")
        fit_to_screen(self, (780, 640))
        self._build()
        so_far = kernel.agents.reply_so_far(agent_id)  # opened mid-reply: what streamed before it opened shows too
        self.transcript.load_history(so_far.conversation)
        # a new agent that has been sent nothing yet: its route may still be chosen ("Route…")
        self.fresh = not so_far.conversation and not so_far.streaming and self.info.state is AgentState.IDLE
        if so_far.streaming:
            self.transcript.add_text(so_far.streaming)
        self._shown_upto = so_far.streamed  # reply text before this offset is on screen (deltas in flight skip it)
        self._show_info(self.info)
        self.check_key()
        if not self.info.state.busy:  # a reopened window: nothing is still running
            self.transcript.settle_open_cards(self.info.state)
        self._interruption_shown = False
        if self.info.state is AgentState.INTERRUPTED:
            self._show_interrupted(self.info)
        self._show_request(next((r for r in kernel.leases.pending() if r.agent_id == agent_id), None))
        bridge.channel(agent_id).event.connect(self._on_event)
        bridge.tick.connect(self._on_tick)
        self.focus_first()

    # ---- layout -----------------------------------------------------------------

    def _build(self) -> None:
        self.state_badge = StateBadge(self.info.state, self)
        self.reason_label = QLabel(self)
        self.reason_label.setTextFormat(Qt.TextFormat.PlainText)  # a provider's error page, a stop reason
        self.reason_label.setWordWrap(True)
        self.pause_button = QPushButton("Pause", self)
        self.pause_button.clicked.connect(self.toggle_pause)
        self.stop_button = QPushButton("Stop", self)
        self.stop_button.setToolTip("Stop this agent for good (Ctrl+. asks first)")
        self.stop_button.clicked.connect(self.stop)
        self.route_button = QPushButton("Route\u2026", self)  # model routes: before the first message only
        self.route_button.setToolTip("Choose this agent's model and fallbacks before its first message "
                                     f"(default: Settings \u2192 Models) \u2014 {ROUTE_SHORTCUT}")
        QShortcut(QKeySequence(ROUTE_SHORTCUT), self, self.choose_route, context=Qt.ShortcutContext.WindowShortcut)
        self.route_button.clicked.connect(self.choose_route)
        self.route_form: RouteForm | None = None  # built on first use: Ctrl+N pays nothing for it
        for button in (self.route_button, self.pause_button, self.stop_button):  # a click leaves the keyboard
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.stop_prompt: QMessageBox | None = None
        QShortcut(QKeySequence("Ctrl+."), self, self.confirm_stop, context=Qt.ShortcutContext.WindowShortcut)
        QShortcut(QKeySequence("Ctrl+W"), self, self.close, context=Qt.ShortcutContext.WindowShortcut)
        QShortcut(QKeySequence("Esc"), self, self._escape, context=Qt.ShortcutContext.WindowShortcut)

        header = QHBoxLayout()
        header.setSpacing(8)
        # Name and id in the window itself: a title bar may not show them (tiling, offscreen).
        self.identity_label = QLabel(f"<b>{html.escape(self.info.name)}</b> \u00b7 {self.agent_id}", self)
        header.addWidget(self.identity_label)
        self.model_label = QLabel(f"{self.info.provider} \u00b7 {self.info.model}", self)  # who it talks to
        self.model_label.setFont(mono_font())
        self.model_label.setTextFormat(Qt.TextFormat.PlainText)
        self.model_label.setToolTip(f"provider {self.info.provider}, model {self.info.model}")
        self.model_label.setStyleSheet(f"color: {shade(MUTED, self.palette())};")
        header.addWidget(self.model_label)
        header.addWidget(self.state_badge)
        header.addWidget(self.reason_label, 1)
        header.addWidget(self.route_button)
        header.addWidget(self.pause_button)
        header.addWidget(self.stop_button)

        self.budget_bar = BudgetBar(self)
        self.raise_button = QPushButton("Raise budget\u2026", self)
        self.raise_button.clicked.connect(self.ask_raise_budget)
        budget_row = QHBoxLayout()
        budget_row.addWidget(self.budget_bar, 1)
        self.cost_label = QLabel(self)  # what the tokens cost (Settings' price table), or why it is not known
        self.cost_label.setStyleSheet(f"color: {shade(MUTED, self.palette())};")
        budget_row.addWidget(self.cost_label)
        self.context_label = QLabel(self)  # "context 41% · cache 93%" (kernel/context)
        self.context_label.setStyleSheet(f"color: {shade(MUTED, self.palette())};")
        budget_row.addWidget(self.context_label)
        self.compact_button = QPushButton("Compact now", self)
        self.compact_button.setToolTip("Summarize the earlier conversation now; the last exchanges stay as they "
                                       "are (type /compact FOCUS in the message box to say what to keep)")
        self.compact_button.clicked.connect(lambda: self.compact_now(""))
        budget_row.addWidget(self.compact_button)
        budget_row.addWidget(self.raise_button)

        self.key_notice = QFrame(self)
        self.key_notice.setObjectName("keyNotice")
        self.key_label = QLabel(self.key_notice)
        self.key_label.setWordWrap(True)
        self.settings_button = QPushButton("Open Settings\u2026", self.key_notice)
        self.settings_button.clicked.connect(self._open_settings)
        notice_row = QHBoxLayout(self.key_notice)
        notice_row.setContentsMargins(8, 4, 8, 4)
        notice_row.addWidget(self.key_label, 1)
        notice_row.addWidget(self.settings_button)
        err = shade(ERROR, self.palette())
        self.key_notice.setStyleSheet(f"QFrame#keyNotice {{ border: 1px solid {err}; border-radius: 4px; }}")
        self.key_notice.hide()

        self.lease_notice = FlagLabel(self)  # a request waits: say so, and how to answer it (a click answers)
        self.lease_notice.clicked.connect(lambda: self.answer_requested.emit(self.agent_id))
        self.lease_notice.setTextFormat(Qt.TextFormat.PlainText)  # it quotes what the model sent
        self.lease_notice.setObjectName("leaseNotice")
        self.lease_notice.setWordWrap(True)
        _glyph, light, dark = STATES[AgentState.WAITING]
        loud = shade((light, dark), self.palette())
        self.lease_notice.setStyleSheet(f"QLabel#leaseNotice {{ color: {loud}; font-weight: bold;"
                                        f" border: 1px solid {loud}; border-radius: 4px; padding: 4px 8px; }}")
        self.lease_notice.hide()

        self.taint_notice = QLabel(self)  # it read untrusted content: say so, and what that changes
        self.taint_notice.setTextFormat(Qt.TextFormat.PlainText)  # the reason quotes a URL or a server
        self.taint_notice.setObjectName("taintNotice")
        self.taint_notice.setWordWrap(True)
        self.taint_notice.setStyleSheet(f"QLabel#taintNotice {{ border: 1px solid {err}; border-radius: 4px;"
                                        " padding: 4px 8px; }")
        self.taint_notice.hide()

        self.transcript = Transcript(self.info.name, self._diffs, self, frames=self.bridge.frames)
        self.input = MessageInput(self)
        self.input.submitted.connect(self.send)
        self.attachments = AttachmentStrip(self)  # pasted or dropped pictures, before they are sent
        self._pictures: list[asyncio.Future[None]] = []  # thumbnails being fetched for tool cards
        self.input.images_offered.connect(self._offered)
        self.send_button = QPushButton("Send", self)
        self.send_button.clicked.connect(self.send)
        self.status_label = QLabel(self)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setStyleSheet(f"color: {shade(MUTED, self.palette())};")
        self.mcp = McpContext(self.kernel, self.agent_id, self.input, self.status_label, self)  # @ and /server:prompt
        input_row = QHBoxLayout()
        input_row.addWidget(self.input, 1)
        input_row.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)

        line = QFrame(self)
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFrameShadow(QFrame.Shadow.Sunken)
        line2 = QFrame(self)
        line2.setFrameShape(QFrame.Shape.HLine)
        line2.setFrameShadow(QFrame.Shadow.Sunken)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 12)
        layout.setSpacing(8)
        layout.addLayout(header)
        layout.addLayout(budget_row)
        layout.addWidget(self.key_notice)
        layout.addWidget(self.lease_notice)
        layout.addWidget(self.taint_notice)
        self._route_slot = layout.count()  # where the route form goes when it is opened
        layout.addWidget(line)
        layout.addWidget(self.transcript, 1)
        layout.addWidget(line2)
        layout.addWidget(self.attachments)
        layout.addWidget(self.mcp.attached_label)
        layout.addWidget(self.mcp.choices)
        layout.addLayout(input_row)
        layout.addWidget(self.status_label)

    # ---- actions ----------------------------------------------------------------

    async def _show_pictures(self, call_id: str, images: tuple[ImagePart, ...]) -> None:
        """Thumbnails of the pictures a call showed the model, made by the kernel from its blob store (a small
        PNG: the picture itself, up to 1.5 MB, is neither sent over the socket nor decoded on the window's loop)."""
        for image in images:
            try:
                thumb = await self.kernel.ledger.thumbnail(image.sha256, PICTURE_THUMB * 2)  # sharp on 2x screens
            except (KernelError, ValueError, OSError):
                return  # the kernel went away: the card stays as it is
            card = self.transcript.cards.get(call_id)
            if thumb is None or card is None:
                continue
            untrusted = ", untrusted" if image.untrusted else ""
            card.add_picture(base64.b64decode(thumb.data_b64), f"{image.label or 'picture'}: {image.width}\u00d7"
                                                               f"{image.height} {image.format}{untrusted}")

    def _offered(self, pictures: list[Pending]) -> None:
        for item in pictures:
            self.attachments.add(item)

    def send(self) -> None:
        text = self.input.toPlainText().strip()
        pending = bool(self.attachments.pending or self.mcp.attached)
        if (text or pending) and self.info.state.busy and not self.info.state.final:
            self.status_label.setText(f"{self.info.name} is working: your message stays here; "
                                      "Enter sends it once the turn is over.")  # typed during a turn: kept for after
            return
        if (not text and not pending) or not self.send_button.isEnabled():
            return
        if text == COMPACT_COMMAND or text.startswith(COMPACT_COMMAND + " "):  # /compact [focus]: never a turn
            if self.compact_now(text[len(COMPACT_COMMAND):].strip()):
                self.input.clear()
            return
        if self.check_key():
            return
        self._sent = True  # before the call: in process, the agent's "running" arrives during it
        self._route_settled()
        if is_prompt_command(text):  # an MCP server's prompt: the kernel gets it, then the message goes
            self._sending = asyncio.ensure_future(self._send_prompt(text))
            self._working()
            return
        if self.attachments.pending:  # the kernel fits them first (a worker thread), then the message goes
            self._sending = asyncio.ensure_future(self._send_with_pictures(text, self.attachments.take()))
            self._working()
            return
        try:
            self.kernel.agents.send(self.agent_id, text)
        except (KernelError, ValueError) as exc:
            self._sent = False
            self.status_label.setText(str(exc))
            return
        self.mcp.sent()
        self._working()

    async def _send_prompt(self, text: str) -> None:
        problem = await self.mcp.send_prompt(text)
        if problem is not None:  # a missing argument, no such prompt: said, and the line stays to fix
            self._sent = False
            self.input.setPlainText(text)
            self.status_label.setText(problem)
            self.input.setEnabled(True)
            self.send_button.setEnabled(True)

    async def _send_with_pictures(self, text: str, pictures: list[Pending]) -> None:
        try:
            parts = [await self.kernel.agents.attach_image(self.agent_id, base64.b64encode(p.data).decode("ascii"),
                                                           "paste", p.label) for p in pictures]
            self.kernel.agents.send(self.agent_id, text, tuple(parts))
            self.mcp.sent()
        except (KernelError, ValueError) as exc:
            self._sent = False
            self.status_label.setText(str(exc))
            for item in pictures:
                self.attachments.add(item)
            self.input.setPlainText(text)
            self.input.setEnabled(True)
            self.send_button.setEnabled(True)

    def _working(self) -> None:
        self.input.clear()
        self.status_label.clear()
        # working now: no second message until the kernel's state says so (attached, its event follows the
        # reply); the box keeps the keyboard, and what is typed meanwhile waits there
        if not self.info.state.busy and self._sent:
            self.send_button.setEnabled(False)

    def choose_route(self) -> RouteForm | None:
        """"Route…": open (or close) the route form above the transcript, its first field focused."""
        if self.route_form is not None and self.route_form.isVisible():
            self._close_route_form()
            return self.route_form
        if not self.fresh:
            return None
        if self.route_form is None:
            usable = configured(PROVIDERS, self.kernel.provider_problem)
            if not usable:
                self.status_label.setText("No provider is configured: add a key in Settings \u2192 Providers.")
                return None
            self.route_form = RouteForm(self.kernel.settings, usable, self.info.provider, self.info.model, self)
            self.route_form.chosen.connect(lambda choice: self.route_chosen.emit(self.agent_id, choice))
            self.route_form.cancelled.connect(self._close_route_form)
            layout = self.layout()
            assert isinstance(layout, QVBoxLayout)
            layout.insertWidget(self._route_slot, self.route_form)
        self.route_form.show()
        self.route_form.focus_first()
        return self.route_form

    def _escape(self) -> None:
        """Esc closes the view (the agent keeps running); inside the open route form it closes the form only."""
        form, focus = self.route_form, QApplication.focusWidget()
        if form is not None and form.isVisible() and focus is not None and form.isAncestorOf(focus):
            self._close_route_form()
            return
        self.close()

    def route_refused(self, why: str) -> None:
        """The kernel would not start an agent on the chosen route: say why in the form."""
        if self.route_form is not None:
            self.route_form.refused(why)

    def _close_route_form(self) -> None:
        if self.route_form is not None:
            self.route_form.hide()
        self.input.setFocus(Qt.FocusReason.OtherFocusReason)

    def _route_settled(self) -> None:
        """The first message went: the route is the one the agent has."""
        self.fresh = False
        self.route_button.hide()
        if self.route_form is not None:
            self.route_form.hide()

    def compact_now(self, focus: str) -> bool:
        """Ask the kernel to summarize the earlier conversation (``focus``: what to keep; recorded only)."""
        try:
            self.kernel.agents.compact(self.agent_id, focus)
        except (KernelError, ValueError) as exc:
            self.status_label.setText(str(exc))
            return False
        self.status_label.setText("Summarizing the earlier conversation\u2026")
        return True

    def toggle_pause(self) -> None:
        try:
            if self.info.state.resumable:
                self.kernel.agents.resume(self.agent_id)
            else:
                self.kernel.agents.pause(self.agent_id)
                if self.info.state.busy:
                    self.status_label.setText("Pausing before the next model request\u2026")
        except KernelError as exc:
            self.status_label.setText(str(exc))

    def stop(self) -> None:
        if not self.info.state.final and not self.detached:
            self.kernel.agents.kill(self.agent_id)

    def confirm_stop(self) -> QMessageBox | None:
        """Ctrl+.: ask first, naming the agent (Cancel is the default)."""
        if self.info.state.final:
            return None
        self.stop_prompt = ask_to_stop(self, self.info.name, self.agent_id, self.stop)
        return self.stop_prompt

    def ask_raise_budget(self) -> QInputDialog:
        """Open (not exec) a window-modal prompt for the new budget."""
        self.raise_dialog = open_raise_budget(self, self.kernel.agents.get(self.agent_id),
                                              lambda value: self.kernel.agents.raise_budget(self.agent_id, value))
        return self.raise_dialog

    # ---- events -----------------------------------------------------------------

    def _on_event(self, event: object) -> None:
        match event:
            case UserMessage(agent_id=self.agent_id, text=text):
                self.transcript.add_user(text)
                self._route_settled()
            case TextDelta(agent_id=self.agent_id, text=text, offset=offset):
                self._add_text(text, offset)
            case TurnFinished(agent_id=self.agent_id):
                self.transcript.end_turn()
            case ToolCallStarted(agent_id=self.agent_id) as e:
                self.transcript.start_call(e.call_id, e.tool, e.scope, e.input)
            case ToolCallFinished(agent_id=self.agent_id) as e:
                self.transcript.finish_call(e.call_id, e.outcome, e.content, e.duration_ms, e.changes)
                if e.images:
                    self._pictures.append(asyncio.ensure_future(self._show_pictures(e.call_id, e.images)))
            case ToolProgress(agent_id=self.agent_id) as e:
                self.transcript.progress_call(e.call_id, e.progress, e.total, e.message)
            case LeaseRequested(request=request) if request.agent_id == self.agent_id:
                self.transcript.waiting_for(request.call_id)
                self._show_request(request)
            case LeaseRequestResolved(agent_id=self.agent_id):
                self._show_request(next((r for r in self.kernel.leases.pending()
                                         if r.agent_id == self.agent_id), None))
            case AgentStateChanged(agent=info) if info.id == self.agent_id:
                self._show_info(info)
                if info.state is AgentState.INTERRUPTED:
                    self._show_interrupted(info)
                if info.state is AgentState.FAILED:
                    self.transcript.add_notice(f"{info.name} failed: {info.reason or 'no reason given'}")
            case AgentKilled(agent=info, by=by) if info.id == self.agent_id:
                self._show_info(info)
                self._show_request(None)
                self.transcript.settle_open_cards(AgentState.KILLED)
                self.transcript.add_notice(f"{info.name} was stopped ({info.reason or 'by ' + by}). "
                                           "Ctrl+N starts a new agent to continue.")
            case LedgerAppended(entry=Compaction(actor=self.agent_id) as entry) if entry.mode == "summary":
                self.transcript.add_divider(compaction_words(entry), entry.context)
                if self.status_label.text().startswith("Summarizing"):
                    self.status_label.clear()
            case UsageUpdated(agent=info) | AgentSpawned(agent=info) | AgentTainted(agent=info) \
                    if info.id == self.agent_id:
                self._show_info(info)
            case LedgerAppended(entry=entry) if entry.actor == self.agent_id and entry.kind == "request":
                if note := answered_by(entry):  # a fallback (or another model) answered: say who
                    self.transcript.add_notice(note[0].upper() + note[1:] + ".")

    def _add_text(self, text: str, offset: int) -> None:
        """Streamed text, less what the window already showed when it opened (sent before it asked)."""
        skip = self._shown_upto - offset
        if skip > 0:
            text = text[skip:]
        if text:
            self.transcript.add_text(text)

    def detach(self) -> None:
        """The kernel went away: the header says so instead of the last state it sent, and what cannot work
        without it (Pause, Stop, Raise budget, Send) is off until ``reattach``; what is typed stays in the box."""
        self.detached = True
        self.state_badge.set_detached()
        for button in (self.pause_button, self.stop_button, self.raise_button, self.send_button):
            button.setEnabled(False)
        self.status_label.setText(DETACHED_WORDS)

    def reattach(self) -> None:
        """The kernel restarted under the window: catch up with the agent as the new kernel has it
        (the events in between died with the old one); the transcript keeps what it showed and
        continues below it. What the window said while the kernel was away goes."""
        self.detached = False
        self.status_label.clear()  # "kernel detached", or an action's "no kernel is listening" before it knew
        self._shown_upto = 0  # a new kernel counts its streamed text from nothing
        try:
            info = self.kernel.agents.get(self.agent_id)
        except UnknownAgent:
            self.transcript.end_text()
            self.transcript.settle_open_cards(AgentState.KILLED)
            self.transcript.add_notice(f"The kernel restarted and no longer lists {self.info.name}.")
            self.input.setEnabled(False)
            self.send_button.setEnabled(False)
            return
        if not info.state.busy:
            self.transcript.end_text()
            self.transcript.settle_open_cards(info.state)
        self._show_info(info)
        if info.state is AgentState.INTERRUPTED:
            self._show_interrupted(info)
        self._show_request(next((r for r in self.kernel.leases.pending() if r.agent_id == self.agent_id), None))

    def _show_interrupted(self, info: AgentInfo) -> None:
        """Say once per interruption that the kernel stopped it and how to go on."""
        self.transcript.end_text()
        self.transcript.settle_open_cards(info.state)
        if not self._interruption_shown:
            self._interruption_shown = True
            self.transcript.add_notice(f"The kernel stopped while {info.name} worked. "
                                       "Resume continues the conversation; nothing it did is run again.")

    def _show_info(self, info: AgentInfo) -> None:
        if info.state.busy:
            self._interruption_shown = False  # working again: a later stop is a new interruption
        self.info = info
        self.state_badge.set_state(info.state)
        self.reason_label.setText(info.reason)
        self.taint_notice.setText(taint_text(info.name, info.tainted) if info.tainted else "")
        self.taint_notice.setToolTip(info.tainted)
        self.taint_notice.setVisible(bool(info.tainted))
        self.budget_bar.set_usage(info.used, info.budget)
        self.cost_label.setText(money(info.cost) if info.cost is not None else "no price")
        self.cost_label.setToolTip(f"what {info.used:,} tokens of {info.model} cost at the prices in Settings"
                                   if info.cost is not None else
                                   f"Settings has no price for {info.provider} \u00b7 {info.model}: tokens only")
        self.context_label.setText(context_words(info))
        killed = info.state.final
        self.compact_button.setEnabled(not killed and not info.state.busy)
        self.pause_button.setText("Resume" if info.state.resumable else "Pause")
        self.pause_button.setEnabled(not killed)
        self.stop_button.setEnabled(not killed)
        self.raise_button.setEnabled(not killed)
        if info.state.busy:
            self._sent = False  # the kernel says it works on it: its state governs from here
        can_type = not killed and self.key_notice.isHidden()  # also during a turn: Pause never takes the keyboard
        self.input.setEnabled(can_type)
        self.send_button.setEnabled(can_type and not info.state.busy and not self._sent)
        if not info.state.busy and self.status_label.text().endswith("once the turn is over."):
            self.status_label.clear()
        if not info.state.busy and self.status_label.text().startswith("Pausing"):
            self.status_label.clear()
        self.route_button.setVisible(self.fresh and not killed and not info.state.busy and not self.detached)
        if killed:
            self.input.setPlaceholderText(STOPPED_PLACEHOLDER)
            self.input.setToolTip(STOPPED_PLACEHOLDER)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        """Only the view closes: the agent keeps working and stays in the process table."""
        super().closeEvent(event)
        if event.isAccepted():
            self.view_closed.emit(self.agent_id)

    def _show_request(self, request: LeaseRequest | None) -> None:
        """Flag a waiting lease request (None: no request waits)."""
        self.lease_notice.setText(lease_waiting_text(request, ANSWER_SHORTCUT) if request is not None else "")
        self.lease_notice.setVisible(request is not None)

    def focus_first(self) -> None:
        """The keyboard goes where the user will type: the message box (or Open Settings when a key is missing)."""
        if self.input.isEnabled():
            self.input.setFocus(Qt.FocusReason.OtherFocusReason)
        elif not self.key_notice.isHidden():
            self.settings_button.setFocus(Qt.FocusReason.OtherFocusReason)

    def check_key(self) -> bool:
        """Show or hide the missing-key notice; True when the key is missing."""
        if self.detached:
            return not self.key_notice.isHidden()  # the kernel is away: nothing to ask it, nothing to change
        message = self.kernel.provider_problem(self.info.provider)
        self.key_label.setText(message or "")
        self.key_notice.setVisible(message is not None)
        self._show_info(self.info)
        return message is not None

    def _on_tick(self) -> None:
        if not self.key_notice.isHidden():
            self.check_key()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self.check_key()
            if hasattr(self, "transcript"):  # (not while it is being built)
                self.transcript.activated()
        super().changeEvent(event)

    def _diffs(self, seqs: Sequence[int]) -> list[str]:
        out = []
        for seq in seqs:
            try:
                out.append(relative_diff(self.kernel.ledger.diff(seq), self.info.workspace))
            except Exception as exc:  # noqa: BLE001 - a diff is a courtesy; say why it is missing
                out.append(f"(no diff for #{seq}: {exc})")
        return out


COMPACT_COMMAND = "/compact"


def context_words(info: AgentInfo) -> str:
    """"context 41% · cache 93%": how full the model's window was at the last request, and the share of
    input tokens read from the provider's cache ("" before any request)."""
    parts = []
    if info.context_share is not None:
        parts.append(f"context {info.context_share:.0%}")
    if info.cache_share is not None:
        parts.append(f"cache {info.cache_share:.0%}")
    return " \u00b7 ".join(parts)


def compaction_words(entry: Compaction) -> str:
    return (f"earlier conversation summarized: {entry.entries:,} entries, {_k(entry.tokens_before)} \u2192 "
            f"{_k(entry.tokens_after)} tokens")


def _k(tokens: int) -> str:
    return f"{tokens / 1000:.0f}k" if tokens >= 10_000 else f"{tokens:,}"
