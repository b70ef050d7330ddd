"""An MCP server's question for the user, asked at the terminal of ``agentdesk ask`` (issue 29).

The kernel's ``McpQuestions`` hands the question here when ``ask`` runs with a TTY; without one the
kernel declines it itself. Each form field is asked in turn with the server's default in brackets
(Enter keeps it), then the person accepts, declines or cancels: only "a" sends anything. A URL
question opens the page in the browser only after the person says yes. Everything shown is the
server's text, escaped (``shown``); stdin is read in a worker thread so the kernel keeps running.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, TextIO

from ..extensions.mcp_elicit import ElicitAnswer, ElicitField, ElicitQuestion, Value
from .terminal import shown


def _open_in_browser(url: str) -> bool:
    import webbrowser

    return webbrowser.open(url)


class TerminalQuestions:
    def __init__(self, stdin: TextIO, stderr: TextIO, browser: Callable[[str], bool] = _open_in_browser) -> None:
        self.stdin = stdin
        self.stderr = stderr
        self.browser = browser

    async def __call__(self, question: ElicitQuestion) -> ElicitAnswer:
        who = f"{shown(question.agent_name or question.agent_id)} ({shown(question.agent_id)})"
        self._say(f"\nThe MCP server {shown(question.server)} asks you, during a call by {who}:")
        self._say(shown(question.message, lines=True))
        if question.url is not None:
            return await self._url(question.url)
        values: dict[str, Value] = {}
        for spec in question.fields:
            value = await self._field(spec)
            if value is not None:
                values[spec.name] = value
        reply = (await self._read("[a] Accept and send  [d] Decline  [c] Cancel > ")).lower()
        if reply == "a":
            return ElicitAnswer("accept", values)
        return ElicitAnswer("cancel" if reply == "c" else "decline")

    async def _url(self, url: str) -> ElicitAnswer:
        self._say(f"It asks you to open {shown(url)}")
        reply = (await self._read("Open it in your browser? [y] Yes  [n] No (decline) > ")).lower()
        if reply != "y":
            return ElicitAnswer("decline")
        if not self.browser(url):
            self._say(f"could not open a browser: open {shown(url)} yourself")
        return ElicitAnswer("accept")

    async def _field(self, spec: ElicitField) -> Value:
        label = shown(spec.title or spec.name)
        choices = f" one of {', '.join(shown(spec.choice_label(c)) for c in spec.choices)}" if spec.choices else ""
        default = f" [{shown(_default_words(spec.default))}]" if spec.default is not None else ""
        need = " (required)" if spec.required else ""
        for _ in range(3):
            text = await self._read(f"  {label} ({spec.kind}{choices}){need}{default}: ")
            if not text:
                return None  # the server's default (``checked`` applies it), or nothing
            value = parsed(spec, text)
            if value is not None:
                return value
            self._say(f"  that is not a {spec.kind}{choices}")
        return None

    async def _read(self, prompt: str) -> str:
        print(prompt, end="", file=self.stderr, flush=True)
        return (await asyncio.to_thread(self.stdin.readline)).strip()

    def _say(self, line: str) -> None:
        print(line, file=self.stderr, flush=True)


def _default_words(value: Value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(value)
    return str(value)


def parsed(spec: ElicitField, text: str) -> Value:
    """What the person typed as the field's kind, or None when it is not one."""
    if spec.kind == "boolean":
        return {"y": True, "yes": True, "true": True, "n": False, "no": False, "false": False}.get(text.lower())
    if spec.kind in ("integer", "number"):
        try:
            return int(text) if spec.kind == "integer" else float(text)
        except ValueError:
            return None
    if spec.kind == "array":
        items = [t.strip() for t in text.split(",") if t.strip()]
        if not spec.choices:
            return items
        values = [_choice(spec, t) for t in items]
        return [v for v in values if v is not None] if None not in values else None
    return text if not spec.choices else _choice(spec, text)


def _choice(spec: ElicitField, text: str) -> str | None:
    """The value a person means by ``text``: a choice's value, or its title (a title that is also another
    choice's value means that value); None for neither."""
    if text in spec.choices:
        return text
    by_title = [v for v, t in zip(spec.choices, spec.choice_titles) if t and t == text]
    return by_title[0] if len(by_title) == 1 else None


class RemoteQuestions:
    """``agentdesk ask`` attached to the kernel service: the agent's questions asked at this terminal, the answer
    sent through the facade; one answered elsewhere first (the desktop) stops the prompt."""

    def __init__(self, kernel: Any, agent_id: str, terminal: TerminalQuestions) -> None:
        self.kernel, self.agent_id, self.terminal = kernel, agent_id, terminal
        self._asking: dict[int, asyncio.Task[None]] = {}

    def __call__(self, event: object) -> None:
        from ..core.events import McpQuestionAsked, McpQuestionClosed

        if isinstance(event, McpQuestionAsked) and event.question.agent_id == self.agent_id:
            question = event.question
            self._asking[question.id] = asyncio.get_running_loop().create_task(self._ask(question))
        elif isinstance(event, McpQuestionClosed) and event.question_id in self._asking:
            task = self._asking.pop(event.question_id)
            if not task.done():
                task.cancel()
                print("\n(answered in another window)", file=self.terminal.stderr)

    async def _ask(self, question: ElicitQuestion) -> None:
        answer = await self.terminal(question)
        self._asking.pop(question.id, None)
        self.kernel.extensions.answer_question(question.id, answer.action, dict(answer.content))
