"""The kernel's answerer of MCP servers' questions (elicitation): a person answers, or nobody does.

A server may ask, mid-call, for something only the user can say. ``McpQuestions`` is the ``Elicitor``
the kernel hands its MCP connections. When someone can answer for the calling agent (a desktop is
attached, or ``agentdesk ask`` runs at a terminal) the question is published as ``McpQuestionAsked``
and waits, like a lease request, for ``answer`` (the desktop's dialog, through the facade) or for the
terminal's prompt (``local``). When nobody can (nobody attached, an automation or channel run, more
than one agent calling the server at once so the question cannot be told apart) it is declined at
once, by the kernel, with the reason on the ledger. The model never sees the question and never
answers it.

Every outcome is one ``mcp.elicit`` entry: who answered, the action, and the values sent to the server
(redacted by the ledger like every entry; a field whose name looks secret is written as "[withheld]").
The answer is checked against the question before it goes out: unknown fields are dropped, the
server's defaults fill what the person left, and a value of the wrong kind is refused as a cancel.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from dataclasses import replace
from typing import Callable, Mapping

from ledger import KERNEL, USER, Ledger, McpElicit

from ..core.events import Event, McpQuestionAsked, McpQuestionClosed
from .mcp_elicit import DECLINED, ElicitAnswer, ElicitField, ElicitQuestion, Elicitor, Value

ACTIONS = ("accept", "decline", "cancel")
WITHHELD = "[withheld]"
_SECRETISH = re.compile(r"pass(word|phrase)?|secret|token|api[-_ ]?key|pin\b|otp|credential", re.I)


class McpQuestions:
    def __init__(self, ledger: Ledger, publish: Callable[[Event], None],
                 nobody: Callable[[str], str | None], local: Elicitor | None = None,
                 agent_name: Callable[[str], str] = lambda agent_id: agent_id) -> None:
        """``nobody(agent_id)``: why nobody can answer for that agent (None: someone can); ``local``: who
        answers in this process (the terminal of ``agentdesk ask``), instead of a client of the facade."""
        self._ledger = ledger
        self._publish = publish
        self._nobody = nobody
        self._local = local
        self._agent_name = agent_name
        self._ids = itertools.count(1)
        self._open: dict[int, tuple[ElicitQuestion, asyncio.Future[ElicitAnswer]]] = {}

    async def __call__(self, question: ElicitQuestion) -> ElicitAnswer:
        why = "more than one agent was calling the server: whose question it is cannot be told" \
            if not question.agent_id else self._nobody(question.agent_id)
        if why is not None:
            self._record(question, DECLINED, KERNEL, f"nobody could answer it: {why}")
            return DECLINED
        asked = replace(question, id=next(self._ids), agent_name=self._agent_name(question.agent_id))
        try:
            answer = checked(asked, await self._ask(asked))
        except asyncio.CancelledError:
            self._record(asked, ElicitAnswer("cancel"), KERNEL, "the call ended before anyone answered")
            raise
        self._record(asked, answer, USER, "")
        return answer

    async def _ask(self, question: ElicitQuestion) -> ElicitAnswer:
        if self._local is not None:
            return await self._local(question)
        future: asyncio.Future[ElicitAnswer] = asyncio.get_running_loop().create_future()
        self._open[question.id] = (question, future)
        self._publish(McpQuestionAsked(question))
        try:
            return await future
        finally:
            self._open.pop(question.id, None)
            action = future.result().action if future.done() and not future.cancelled() else "cancel"
            self._publish(McpQuestionClosed(question.id, action))

    def pending(self) -> list[ElicitQuestion]:
        """The questions waiting for the user, oldest first."""
        return [q for q, _f in self._open.values()]

    def answer(self, question_id: int, action: str, content: Mapping[str, Value] | None = None) -> bool:
        """The user's answer to an open question; False when it is no longer open (or already answered)."""
        entry = self._open.get(question_id)
        if entry is None or entry[1].done():
            return False
        if action not in ACTIONS:
            raise ValueError(f"an answer's action is one of {', '.join(ACTIONS)}, not {str(action)[:40]!r}")
        entry[1].set_result(ElicitAnswer(action, dict(content or {})))
        return True

    def _record(self, question: ElicitQuestion, answer: ElicitAnswer, by: str, reason: str) -> None:
        fields = {f.name: f for f in question.fields}
        shown = {k: (WITHHELD if _secret(k, fields.get(k)) else v) for k, v in answer.content.items()}
        self._ledger.append(McpElicit(actor=by, subject=question.agent_id, server=question.server,
                                      message=question.message, action=answer.action, reason=reason,
                                      url=question.url, answer=shown))


def _secret(name: str, spec: ElicitField | None) -> bool:
    return bool(_SECRETISH.search(name) or (spec is not None and _SECRETISH.search(spec.title)))


def checked(question: ElicitQuestion, answer: ElicitAnswer) -> ElicitAnswer:
    """``answer`` as it may go to the server: an accepted form holds only the question's fields, each of its
    kind, the server's defaults filling what was left; anything else in it makes it a cancel."""
    if answer.action not in ACTIONS:
        return ElicitAnswer("cancel")
    if answer.action != "accept" or question.url is not None:
        return ElicitAnswer(answer.action)
    fields = {f.name: f for f in question.fields}
    given = {k: v for k, v in answer.content.items() if k in fields}
    out = question.with_defaults(given)
    for name, spec in fields.items():
        value = out.get(name)
        if value is None:
            if spec.required:
                return ElicitAnswer("cancel")
            out.pop(name, None)
            continue
        if not _fits(spec, value):
            return ElicitAnswer("cancel")
    return ElicitAnswer("accept", out)


def _fits(spec: ElicitField, value: Value) -> bool:
    if spec.kind == "boolean":
        return isinstance(value, bool)
    if spec.kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if spec.kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if spec.kind == "array":
        return isinstance(value, list) and all(isinstance(v, str) and (not spec.choices or v in spec.choices)
                                               for v in value)
    return isinstance(value, str) and (not spec.choices or value in spec.choices)
