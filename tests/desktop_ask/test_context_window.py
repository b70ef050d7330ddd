"""The Ask window shows how full the context is and how much was read from cache, and compacts on request."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from kernel.api import Compaction
from kernel.providers.base import StreamEnd, TextChunk, UsageReport
from kernel.providers.scripted import ScriptedTurn, reply
from tests.service.attached import WAIT_MS

from .test_ask_window import send


def cached_reply(text: str) -> ScriptedTurn:
    return ScriptedTurn((UsageReport(input_tokens=2_000, output_tokens=0, cache_read_tokens=1_860), TextChunk(text),
                         UsageReport(output_tokens=5), StreamEnd("end_turn")))


@pytest.mark.in_process  # scripted usage with cache reads
def test_header_context_and_cache_then_slash_compact_draws_a_divider(desk, qtbot):
    win = desk.open()
    provider = desk.provider_of(win)
    provider.script(cached_reply("first answer"), cached_reply("second answer"),
                    reply("Two questions; both answered."))
    send(qtbot, win, "one")
    desk.until_state(win, "idle")
    qtbot.waitUntil(lambda: "cache 93%" in win.context_label.text(), timeout=WAIT_MS)  # 1,860 of 2,000
    assert win.context_label.text().startswith("context ")
    send(qtbot, win, "two")
    desk.until_state(win, "idle")
    send(qtbot, win, "/compact the numbers")
    qtbot.waitUntil(lambda: bool(win.transcript.dividers), timeout=WAIT_MS)
    divider = win.transcript.dividers[-1]
    assert "earlier conversation summarized: " in divider.text() and "tokens" in divider.text()
    assert "both answered" in divider.toolTip()
    qtbot.mouseClick(divider, Qt.MouseButton.LeftButton)
    assert "both answered" in divider.text()  # opens the summary
    desk.until_state(win, "idle")
    assert not any("/compact" in getattr(b, "raw", "") for b in win.transcript.blocks)  # never a user turn
    [entry] = [e for e in desk.ledger.page() if isinstance(e, Compaction)]
    assert entry.focus == "the numbers" and entry.trigger == "manual"
    provider.assert_done()
