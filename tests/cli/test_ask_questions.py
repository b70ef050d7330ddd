"""``agentdesk ask`` attached to the kernel service asks an MCP server's question at its terminal and answers it
through the facade (issue 29); a question answered elsewhere first (the desktop) stops the prompt. The facade
here is the in-process kernel's (the service's client speaks the same one: tests/contract)."""

from __future__ import annotations

import asyncio
import io
import threading
from pathlib import Path

from kernel.cli.ask_questions import RemoteQuestions, TerminalQuestions
from kernel.compose import build_kernel
from kernel.config.settings import Settings
from kernel.extensions.mcp_elicit import ElicitAnswer, ElicitQuestion, question_of
from kernel.providers.scripted import ScriptedProvider
from ledger import Ledger

SCHEMA = {"type": "object", "properties": {"count": {"type": "integer", "default": 2}}}


class _Typing(io.TextIOBase):
    """A terminal whose person has not typed yet: readline waits until ``type`` (on the test's side)."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._ready = threading.Condition()

    def type(self, line: str) -> None:
        with self._ready:
            self._lines.append(line)
            self._ready.notify()

    def readline(self, size: int = -1) -> str:
        with self._ready:
            self._ready.wait_for(lambda: bool(self._lines), timeout=30)
            return self._lines.pop(0) if self._lines else ""


def test_the_attached_terminal_answers_through_the_facade_and_stops_when_answered_elsewhere(tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    with Ledger(tmp_path / "ledger.db") as ledger:
        kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws)),
                              providers=lambda _n: ScriptedProvider(), attached=True)
        stdin, stderr = _Typing(), io.StringIO()

        async def main() -> None:
            try:
                agent = kernel.agents.spawn("scribe")
                kernel.subscribe(RemoteQuestions(kernel, agent.id, TerminalQuestions(stdin, stderr)))
                questions = kernel.extensions._questions
                asked = asyncio.ensure_future(questions(
                    ElicitQuestion("shop", "How many?", question_of("s", "", SCHEMA).fields, agent_id=agent.id)))
                stdin.type("7\n")
                stdin.type("a\n")
                assert await asyncio.wait_for(asked, 30) == ElicitAnswer("accept", {"count": 7})
                # answered in the desktop first: this terminal's prompt stops
                second = asyncio.ensure_future(questions(ElicitQuestion("shop", "Again?", agent_id=agent.id)))
                while not kernel.extensions.questions():
                    await asyncio.sleep(0)
                [waiting] = kernel.extensions.questions()
                assert kernel.extensions.answer_question(waiting.id, "decline") is True
                assert await asyncio.wait_for(second, 30) == ElicitAnswer("decline")
                stdin.type("a\n")  # the stopped prompt's thread reads this and gives up; nothing is sent
            finally:
                await kernel.aclose()

        asyncio.run(main())
    assert "The MCP server shop asks you" in stderr.getvalue() and "(answered in another window)" in stderr.getvalue()


def test_a_servers_hostile_choice_titles_are_cleaned_and_never_stand_for_another_value():
    from kernel.cli.ask_questions import parsed
    from kernel.cli.terminal import shown

    schema = {"type": "object", "properties": {
        "pick": {"type": "string", "oneOf": [
            {"const": "a", "title": "b"},                      # a title that is another choice's value
            {"const": "b", "title": "\u202eevil\u202c" + "x" * 500},  # bidi codes, far too long
            {"const": "c", "title": "same"}, {"const": "d", "title": "same"}]},  # one title, two values
        "pet": {"type": "string", "enum": ["p1", "p2"], "enumNames": ["Cats"]}}}  # names that do not line up
    pick, pet = question_of("s", "?", schema).fields
    assert len(pick.choice_titles) == 4 and len(pick.choice_titles[1]) <= 200  # capped
    assert "\\u202e" in shown(pick.choice_label("b"))  # the terminal writes the override as an escape
    assert parsed(pick, "b") == "b"        # a value means that value, whatever title another choice has
    assert parsed(pick, "same") is None    # a title shared by two choices means neither
    assert parsed(pick, "d") == "d" and parsed(pick, "zzz") is None
    assert pet.choice_titles == ("", "") and pet.choice_label("p1") == "p1"
