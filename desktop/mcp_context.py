"""MCP resources and prompts in the Ask window's message box: ``@`` lists the connected servers' resources and
attaches the one chosen to the next message; ``/server:prompt name=value`` sends a server's prompt, with the
prompt names and the argument values the server suggests offered as you type.

Everything goes through the kernel's facade (``kernel.extensions.mcp_*``): the kernel reads the resource,
keeps it for the agent's next turn as untrusted context (and current, when the server sends updates), and
puts a prompt's messages into that turn; the window only offers, shows and sends. The suggestion list sits
above the message box and never takes the keyboard: Up/Down move in it, Enter or Tab takes the choice, Esc
closes it, and typing goes on in the box. A reply that comes back after the text changed is dropped.
"""

from __future__ import annotations

import asyncio
import re
import shlex
from typing import Any, Sequence

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QWidget

from kernel.api import KernelError, KernelFacade

from .widgets.message_input import MessageInput

PROMPT_COMMAND = re.compile(r"^/[a-z][a-z0-9_-]{0,31}:[^\s=]")
_PARTIAL_COMMAND = re.compile(r"^/[a-z0-9_:-]*$")
_ARGUMENT = re.compile(r"^(/[a-z][a-z0-9_-]{0,31}):([^\s=]+)\s(.*?)([^\s=]+)=(\S*)$", re.S)
ROWS = 6


def is_prompt_command(text: str) -> bool:
    """Whether the message names an MCP prompt (``/server:prompt …``) rather than being words to send."""
    return PROMPT_COMMAND.match(text.strip()) is not None


class McpContext(QObject):
    """The ``@`` picker, the prompt suggestions and the attached resources of one Ask window."""

    def __init__(self, kernel: KernelFacade, agent_id: str, box: MessageInput, status: QLabel,
                 parent: QWidget) -> None:
        super().__init__(parent)
        self.kernel, self.agent_id, self.box, self.status = kernel, agent_id, box, status
        self.choices = QListWidget(parent)  # suggestions: resources, prompt names, argument values
        self.choices.setObjectName("mcpChoices")
        self.choices.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.choices.setMaximumHeight(box.fontMetrics().lineSpacing() * ROWS + 12)
        self.choices.itemClicked.connect(self.choose)
        self.choices.hide()
        self.attached_label = QLabel(parent)  # what waits for the next message
        self.attached_label.setTextFormat(Qt.TextFormat.PlainText)
        self.attached_label.setWordWrap(True)
        self.attached_label.hide()
        self.attached: list[str] = []
        self._mode = ""
        self._generation = 0
        self._prompts: list[Any] | None = None  # the servers' prompts while a command is typed
        self._tasks: set[asyncio.Future[Any]] = set()
        box.key_hook = self.take_key
        box.textChanged.connect(self._typed)

    # ---- what is typed ------------------------------------------------------------------------

    def _typed(self) -> None:
        self._generation += 1
        text = self.box.toPlainText()
        at = self.box.textCursor().position()
        if not text.startswith("/"):
            self._prompts = None  # listed again for the next command: a server may have changed them
        if at > 0 and text[at - 1:at] == "@" and (at == 1 or text[at - 2].isspace()):
            self._run(self._offer_resources(self._generation))
        elif _PARTIAL_COMMAND.match(text) and len(text) > 1:
            self._run(self._offer_prompts(self._generation, text))
        elif (m := _ARGUMENT.match(text)) is not None:
            self._run(self._offer_values(self._generation, m))
        else:
            self.close_choices()

    async def _offer_resources(self, generation: int) -> None:
        found = await self.kernel.extensions.mcp_resources()
        rows = [(f"{r.name}  \u00b7  {r.uri}  ({r.server})", ("resource", r.server, r.uri)) for r in found]
        self._show(generation, "resource", rows, "no MCP server lists resources")

    async def _offer_prompts(self, generation: int, typed: str) -> None:
        if self._prompts is None:
            self._prompts = await self.kernel.extensions.mcp_prompts()
        found = self._prompts
        rows = []
        for p in found:
            if p.command.startswith(typed):
                needs = " ".join(f"{a.name}=\u2026" for a in p.arguments if a.required)
                rows.append((f"{p.command} {needs}".strip() + (f"  \u2014 {p.description}" if p.description else ""),
                             ("command", p.command)))
        self._show(generation, "command", rows, "")

    async def _offer_values(self, generation: int, m: re.Match[str]) -> None:
        server, prompt, argument, partial = m.group(1)[1:], m.group(2), m.group(4), m.group(5)
        context = {}
        for word in m.group(3).split():
            name, sep, value = word.partition("=")
            if sep:
                context[name] = value
        values = await self.kernel.extensions.mcp_complete(server, prompt, argument, partial, context or None)
        self._show(generation, "value", [(v, ("value", v)) for v in values], "")

    def _show(self, generation: int, mode: str, rows: Sequence[tuple[str, tuple[str, ...]]], empty: str) -> None:
        if generation != self._generation:
            return  # the text changed meanwhile: this answer is for something no longer typed
        self.choices.clear()
        if not rows:
            self.close_choices()
            if empty:
                self.status.setText(empty)
            return
        for label, data in rows:
            item = QListWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, data)
            item.setToolTip(label)
            self.choices.addItem(item)
        self.choices.setCurrentRow(0)
        self._mode = mode
        self.choices.show()

    def close_choices(self) -> None:
        self._mode = ""
        self.choices.hide()

    # ---- choosing -----------------------------------------------------------------------------

    def choose(self, item: QListWidgetItem | None = None) -> None:
        item = item or self.choices.currentItem()
        if item is None:
            return
        data = item.data(Qt.ItemDataRole.UserRole)
        self.close_choices()
        if data[0] == "resource":
            self._drop_at_sign()
            self._run(self._attach(data[1], data[2]))
        elif data[0] == "command":
            self._replace_text(data[1] + " ")
        elif data[0] == "value":
            text = self.box.toPlainText()
            head = text[: text.rfind("=") + 1]
            value = data[1] if data[1] and not any(c.isspace() or c in "\"'" for c in data[1]) else shlex.quote(data[1])
            self._replace_text(head + value + " ")

    def _drop_at_sign(self) -> None:
        cursor = self.box.textCursor()
        if cursor.position() > 0 and self.box.toPlainText()[cursor.position() - 1] == "@":
            cursor.deletePreviousChar()
            self.box.setTextCursor(cursor)

    def _replace_text(self, text: str) -> None:
        self.box.blockSignals(True)
        self.box.setPlainText(text)
        cursor = self.box.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        self.box.setTextCursor(cursor)
        self.box.blockSignals(False)
        self._typed()  # what can follow (an argument's values) is offered at once

    async def _attach(self, server: str, uri: str) -> None:
        attached = await self.kernel.extensions.mcp_attach(self.agent_id, server, uri)
        kept = ", kept current" if attached.subscribed else ""
        pictures = f", {attached.images} picture{'s' if attached.images != 1 else ''}" if attached.images else ""
        self.attached.append(f"{attached.name} ({attached.uri} from {attached.server}, {attached.chars:,} "
                             f"characters{pictures}{kept})")
        self._show_attached()
        self.status.setText(f"attached {attached.uri}: it goes with your next message, marked as untrusted")

    def _show_attached(self) -> None:
        self.attached_label.setText("Attached: " + "; ".join(self.attached))
        self.attached_label.setVisible(bool(self.attached))

    def sent(self) -> None:
        """The message went: what was attached went with it (the kernel took it)."""
        self.attached = []
        self._show_attached()

    async def send_prompt(self, text: str) -> str | None:
        """Send ``/server:prompt …`` as the next message; the reason it could not be sent, or None."""
        try:
            await self.kernel.extensions.mcp_use_prompt(self.agent_id, text)
            self.kernel.agents.send(self.agent_id, "")
        except (KernelError, ValueError) as exc:
            return str(exc)
        self.sent()
        return None

    # ---- the keyboard stays in the message box --------------------------------------------------

    def take_key(self, event: QKeyEvent) -> bool:
        """The message box's key hook: while suggestions show, their keys are theirs."""
        if self.choices.isVisible():
            key = event.key()
            if key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
                row = self.choices.currentRow() + (1 if key == Qt.Key.Key_Down else -1)
                self.choices.setCurrentRow(max(0, min(row, self.choices.count() - 1)))
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab):
                self.choose()
                return True
            if key == Qt.Key.Key_Escape:
                self.close_choices()
                return True
        return False

    def _run(self, work: Any) -> None:
        task = asyncio.ensure_future(self._guarded(work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _guarded(self, work: Any) -> None:
        try:
            await work
        except (KernelError, ValueError) as exc:
            self.close_choices()
            self.status.setText(str(exc))
