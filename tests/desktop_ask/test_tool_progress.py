"""An MCP server's progress on a running call reaches its tool card through the kernel's events (issue 29):
"3 of 10" and a bar in the card's line while it runs, gone when it finishes; and the terminal's tool line."""

from __future__ import annotations

import io

import pytest

from desktop.wording import describe_outcome
from kernel.cli.terminal import ToolLines
from kernel.core.events import Outcome, ToolCallStarted, ToolProgress


@pytest.mark.in_process  # the event is published on the in-process kernel's bus, as the MCP hub publishes it
def test_progress_shows_in_the_running_calls_card(desk, qtbot):
    win = desk.open()
    bus = desk.kernel._services.bus
    bus.publish(ToolCallStarted(win.agent_id, "c1", "mcp__shop__export", "mcp.shop.export", {"rows": 10}, None))
    bus.publish(ToolProgress(win.agent_id, "c1", 3, 10, "exporting rows"))
    bus.publish(ToolProgress("someone-else", "c1", 9, 10, "not this agent's"))
    card = win.transcript.cards["c1"]
    qtbot.waitUntil(lambda: card.progress_bar is not None)
    assert card.status_label.text() == "\u2026 3 of 10 \u00b7 exporting rows"
    assert (card.progress_bar.minimum(), card.progress_bar.maximum(), card.progress_bar.value()) == (0, 1000, 300)
    bus.publish(ToolProgress(win.agent_id, "c1", 1500, None, ""))
    assert card.status_label.text() == "\u2026 1,500 so far" and card.progress_bar.maximum() == 0  # busy bar
    card.finish(describe_outcome(Outcome.OK, "done"), "done", 12.0)
    bus.publish(ToolProgress(win.agent_id, "c1", 10, 10, "late"))
    assert card.status_label.text() == "\u2713 12 ms" and card.progress_bar.isHidden()


def test_the_terminal_says_progress_once_per_tenth_on_the_tool_line() -> None:
    stderr = io.StringIO()
    lines = ToolLines("a1", io.StringIO(), stderr)
    lines(ToolCallStarted("a1", "c1", "mcp__shop__export", "mcp.shop.export", {}, None))
    for done in (1, 1.5, 2, 3, 10):
        lines(ToolProgress("a1", "c1", done, 10, "rows\x1b[2J"))
    for done in range(100):
        lines(ToolProgress("a1", "c2", done, None, ""))
    said = stderr.getvalue().splitlines()
    assert said[:4] == ["[tool] mcp__shop__export 1 of 10: rows\\x1b[2J", "[tool] mcp__shop__export 2 of 10: rows\\x1b[2J",
                        "[tool] mcp__shop__export 3 of 10: rows\\x1b[2J", "[tool] mcp__shop__export 10 of 10: rows\\x1b[2J"]
    assert len(said) == 4 + 20 and said[4] == "[tool] a tool 0 so far"  # no total: at most 20 lines a call
