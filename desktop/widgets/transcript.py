"""The conversation of one agent: message blocks and tool cards, in order, fed by events.

It is a view of the kernel's event stream for one agent (plus the history
already there when the window opens). Streaming text goes into the current
assistant block; a tool call closes that block and opens a card; a failure
or refusal becomes a card or notice in the error colour.

Text deltas are not rendered one by one: they collect in a buffer that the
``FrameClock`` flushes once per frame (about 30 ms in the active window,
100 ms in the others), so a model streaming a hundred deltas a second costs
at most about thirty renders of one block (and one layout pass) a second. Anything else that changes the transcript
flushes the buffer first, so the order on screen is the order of events.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from kernel.api import AgentState, Outcome, Message, TextPart, ToolResultPart, ToolUse, is_compacted_context, is_state_block

from ..theme import ERROR, MUTED, shade
from ..wording import CallOutcome, describe_outcome
from ..frame_clock import BACKGROUND_FRAME_MS, FRAME_MS, FrameClock
from .flat_scroll_bar import FlatScrollBar
from .markdown_block import MarkdownBlock
from .tool_card import ToolCard

DiffLoader = Callable[[Sequence[int]], list[str]]


class Transcript(QScrollArea):
    def __init__(self, agent_name: str, load_diffs: DiffLoader, parent: QWidget | None = None,
                 frames: FrameClock | None = None) -> None:
        super().__init__(parent)
        self.agent_name = agent_name
        self._load_diffs = load_diffs
        self.blocks: list[QWidget] = []
        self.dividers: list[QLabel] = []  # where the conversation was summarized (kernel/context)
        self.cards: dict[str, ToolCard] = {}
        self.current: MarkdownBlock | None = None
        self._pending: list[str] = []
        self._unsettled: list[MarkdownBlock] = []  # finished replies waiting for their window to come forward
        self._frames = frames or FrameClock(self)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBar(FlatScrollBar(Qt.Orientation.Vertical, self))  # repainted with every new line
        body = QWidget(self)
        body.setAutoFillBackground(True)
        body.setBackgroundRole(QPalette.ColorRole.Base)
        body.setAttribute(Qt.WidgetAttribute.WA_StaticContents)  # growing repaints only the new strip
        self._layout = QVBoxLayout(body)
        self._layout.setContentsMargins(12, 8, 12, 8)
        self._layout.setSpacing(8)
        self.empty = QLabel(
            f"Type a message below to give {agent_name} a task. Its replies, every tool call it makes and "
            "its requests for leases will appear here.", body)
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet(f"color: {shade(MUTED, self.palette())};")
        self._layout.addWidget(self.empty)
        self._layout.addStretch(1)
        self.setWidget(body)
        self.verticalScrollBar().rangeChanged.connect(self._follow)
        self._at_bottom = True
        self.verticalScrollBar().valueChanged.connect(self._remember_position)

    # ---- adding -----------------------------------------------------------------

    def _add(self, widget: QWidget) -> None:
        self.empty.hide()
        self._layout.insertWidget(self._layout.count() - 1, widget)
        self.blocks.append(widget)

    def add_user(self, text: str) -> MarkdownBlock:
        self.end_text()
        block = MarkdownBlock("You", text, parent=self.widget(), final=True)
        self._add(block)
        return block

    def add_text(self, chunk: str) -> None:
        """Queue streamed text for the next frame."""
        self._pending.append(chunk)
        active = self.window().isActiveWindow()
        self._frames.request(self, self.flush_text, FRAME_MS if active else BACKGROUND_FRAME_MS)

    @property
    def pending(self) -> bool:
        """True while streamed text waits for the next frame."""
        return bool(self._pending)

    def flush_text(self) -> None:
        """Render the queued text into the current block now."""
        self._frames.cancel(self)
        if not self._pending:
            return
        text, self._pending = "".join(self._pending), []
        if self.current is None:
            self.current = MarkdownBlock(self.agent_name, parent=self.widget())
            self._add(self.current)
        self.current.append(text)

    def end_text(self) -> None:
        """Close the current reply now (anything added after it goes below it)."""
        self.flush_text()
        if self.current is not None:
            self._frames.cancel(self.current)
            self.current.finish()
            self.current = None

    def end_turn(self) -> None:
        """The turn is over: show all its text now, and make it a selectable label in a frame of its own.

        Laying out and painting a long reply's label costs Qt as much as
        several frames of streaming; twenty agents finishing together must
        not do it all in one pass. The block is closed at once (what comes
        next goes below it); only its settling waits: a frame in the active
        window, and in a window in the background until it is activated
        (it shows the same text meanwhile; only selecting it needs the
        label, and selecting starts with a click that activates the window).
        With twenty windows streaming, each settling was one of the
        desktop's longest stalls (20-30 ms for a 400-word reply, 2026-12-01).
        """
        self.flush_text()
        block, self.current = self.current, None
        if block is not None:
            if self.window().isActiveWindow():
                self._frames.request(block, block.finish, FRAME_MS, cost=self._frames.per_pass)
            else:
                self._unsettled.append(block)
                self._frames.request(block.live, block.live.stop_reserving, BACKGROUND_FRAME_MS)

    def activated(self) -> None:
        """The window came to the front: replies finished meanwhile become labels, a frame each."""
        waiting, self._unsettled = self._unsettled, []
        for block in waiting:
            self._frames.request(block, block.finish, FRAME_MS, cost=self._frames.per_pass)

    def start_call(self, call_id: str, tool: str, scope: str, tool_input: Mapping[str, Any]) -> ToolCard:
        self.end_text()
        card = ToolCard(tool, scope, tool_input, parent=self.widget())
        self.cards[call_id] = card
        self._add(card)
        return card

    def finish_call(self, call_id: str, outcome: Outcome, content: str, duration_ms: float,
                    changes: Sequence[int] = ()) -> None:
        card = self.cards.get(call_id)
        if card is not None:
            card.finish(describe_outcome(outcome, content), content, duration_ms, self._load_diffs(changes))

    def progress_call(self, call_id: str, done: float, total: float | None, message: str) -> None:
        """A running call's progress (an MCP server's notice) on its card."""
        card = self.cards.get(call_id)
        if card is not None:
            card.show_progress(done, total, message)

    def waiting_for(self, call_id: str) -> bool:
        """Mark the card of call ``call_id`` as waiting for a lease; False when there is no such card."""
        card = self.cards.get(call_id)
        if card is None or card.outcome is not None:
            return False
        card.status_label.setText("\u25c6 waiting for a lease")
        return True

    def settle_open_cards(self, state: AgentState) -> int:
        """End every card still running or waiting (its agent was killed, or it never got a result):
        a card always ends in a final state. Returns how many were settled."""
        words = ("not finished: the agent was stopped" if state is AgentState.KILLED
                 else f"no result: the agent is {state}")
        settled = 0
        for card in self.cards.values():
            if card.outcome is None:
                card.finish(CallOutcome(Outcome.CANCELLED, words), "", 0.0)
                settled += 1
        return settled

    def add_divider(self, text: str, detail: str) -> QLabel:
        """A line across the conversation where it was summarized; the summary in its tooltip and on a click."""
        self.end_text()
        label = QLabel(f"\u2500\u2500 {text} \u2500\u2500", self.widget())
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setObjectName("divider")
        label.setToolTip(detail[:4000])
        label.setStyleSheet(f"QLabel#divider {{ color: {shade(MUTED, self.palette())}; }}")
        label.mousePressEvent = lambda _e: label.setText(detail)  # type: ignore[method-assign]  # opens it in place
        label.setWordWrap(True)
        self._add(label)
        self.dividers.append(label)
        return label

    def add_notice(self, text: str) -> QLabel:
        """A failure or stop, in the error colour."""
        self.end_text()
        label = QLabel(text, self.widget())
        label.setTextFormat(Qt.TextFormat.PlainText)  # it quotes a provider's or the kernel's reason
        label.setWordWrap(True)
        label.setObjectName("notice")
        err = shade(ERROR, self.palette())
        label.setStyleSheet(f"QLabel#notice {{ color: {err}; border: 1px solid {err}; border-radius: 4px;"
                            " padding: 4px 8px; }")
        self._add(label)
        return label

    def load_history(self, messages: Sequence[Message]) -> None:
        """Show a conversation that happened before the window opened."""
        for message in messages:
            for part in message.parts:
                if isinstance(part, TextPart) and message.role == "user":
                    if is_compacted_context(part.text):  # the summary that replaced what came before
                        self.add_divider("earlier conversation summarized", part.text)
                    elif not is_state_block(part.text):  # the kernel's state block, not the user's words
                        self.add_user(part.text)
                elif isinstance(part, TextPart):
                    self.add_text(part.text)
                    self.end_text()
                elif isinstance(part, ToolUse):
                    self.start_call(part.id, part.name, "", part.input)
                elif isinstance(part, ToolResultPart):
                    # history keeps only "an error or a refusal": shown alike, as the card's reason
                    self.finish_call(part.tool_use_id, Outcome.ERROR if part.is_error else Outcome.OK,
                                     part.content, 0.0)

    # ---- scrolling --------------------------------------------------------------

    def _remember_position(self, value: int) -> None:
        self._at_bottom = value >= self.verticalScrollBar().maximum() - 4

    def _follow(self, _min: int, maximum: int) -> None:
        if self._at_bottom:  # follow now, so growing and scrolling are painted in one pass
            self.verticalScrollBar().setValue(maximum)
