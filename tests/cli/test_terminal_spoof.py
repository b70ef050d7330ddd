"""The terminal's lease prompt shows what the model sent as text, never as terminal control sequences.

A model (or a page it read) controls a tool call's arguments. Printed raw on a TTY, a carriage return
or an escape sequence in a command rewrites the line the person reads before answering: the prompt
below says ``command=ls`` while the call runs ``rm -rf ~``.
"""

from __future__ import annotations

import io

import pytest

from kernel.cli.terminal import ToolLines
from kernel.core.events import TextDelta
from tests.cli.test_ask import anthropic_env, ask_on_a_tty
from tests.fakes import FakeProviderServer, Text, ToolCall as FakeCall, Turn

HIDDEN = "rm -rf ~/x\r\x1b[2Kcommand=ls -la\x1b]52;c;ZXZpbA==\x07 \u202etxt.exe"


@pytest.fixture
def srv():
    with FakeProviderServer() as s:
        yield s


def test_a_command_cannot_rewrite_the_terminal_lease_prompt(srv, tmp_path, agentdesk_home):
    srv.script(Turn(parts=(FakeCall("shell_exec", {"command": HIDDEN}),)), Turn(parts=(Text("done"),)))
    status, seen, _out, err = ask_on_a_tty(["tidy up", "--workspace", str(tmp_path)], agentdesk_home,
                                           anthropic_env(srv), b"[d] Deny > ", b"d\n")
    assert status == 0, seen + err
    asked = seen.decode("utf-8", "replace")
    line = next(l for l in asked.splitlines() if "asks for shell.exec" in l)
    assert "rm -rf ~/x" in line and "command=ls -la" in line  # both shown, on the one line
    for control in ("\r", "\x1b", "\x07", "\u202e"):
        assert control not in asked, f"{control!r} reached the terminal"


def test_a_tool_error_line_cannot_carry_control_sequences(srv, tmp_path, agentdesk_home):
    srv.script(Turn(parts=(FakeCall("fs_read", {"path": "nope\x1b[2J\rgone.txt"}),)), Turn(parts=(Text("ok"),)))
    status, seen, _out, err = ask_on_a_tty(["read", "--workspace", str(tmp_path), "--grant", "fs.read=5m"],
                                           agentdesk_home, anthropic_env(srv), b"[tool] fs_read", b"")
    rest = (seen + err).decode("utf-8", "replace")
    assert status == 0, rest
    tool_line = next(l for l in rest.splitlines() if l.startswith("[tool] fs_read"))
    assert "error" in tool_line and "gone.txt" in tool_line
    assert "\x1b" not in rest and "\r" not in rest


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_reply_cannot_recolour_or_hide_the_prompt_that_follows_it_on_a_terminal():
    """Text streamed to a terminal keeps its lines, not its escapes (``\\x1b[8m`` would hide the prompt);
    piped to a file it is written exactly as the model sent it."""
    reply = "done.\n\x1b[8mhidden from here on\x1b]52;c;ZXZpbA==\x07\ttab\n"
    for out, expected in ((_Tty(), "done.\n\\x1b[8mhidden from here on\\x1b]52;c;ZXZpbA==\\x07\ttab\n"),
                          (io.StringIO(), reply)):
        lines = ToolLines("a1", out, io.StringIO())
        lines(TextDelta("a1", reply))
        assert out.getvalue() == expected
