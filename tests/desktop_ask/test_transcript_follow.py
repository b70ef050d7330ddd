"""The transcript follows new output while the view is at the bottom, and ends at the last message."""

from __future__ import annotations

import asyncio

from PySide6.QtWidgets import QApplication

from kernel.providers.base import StreamEnd, TextChunk
from kernel.providers.scripted import Hold, ScriptedTurn, reply
from tests.service.attached import WAIT_MS

LINES = "".join(f"line {i} of the reply, with words enough to wrap at least once in a narrow window.\n\n"
                for i in range(60))
MARGIN = 12  # the transcript's own bottom margin, and a pixel or two of rounding


def _settle(win, qtbot) -> None:
    t = win.transcript
    qtbot.waitUntil(lambda: not t.pending and win.bridge.frames.idle, timeout=WAIT_MS)  # every frame asked for has run
    for _ in range(3):
        QApplication.processEvents()  # layout requests are posted events


def _blank_below_last(win) -> int:
    t = win.transcript
    bar = t.verticalScrollBar()
    return bar.value() + t.viewport().height() - t.blocks[-1].geometry().bottom()


def test_no_empty_space_past_the_last_message(desk, qtbot):
    win = desk.open()
    win.resize(700, 500)
    desk.provider_of(win).script(reply(LINES, chunks=60))
    desk.kernel.agents.send(win.agent_id, "go")
    desk.until_state(win, "idle")
    _settle(win, qtbot)
    t = win.transcript
    bar = t.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == bar.maximum()
    assert _blank_below_last(win) <= MARGIN  # was a viewport-tall (and more) blank tail
    assert t.widget().height() <= t.blocks[-1].geometry().bottom() + MARGIN


def test_follows_again_once_scrolled_back_to_the_bottom(desk, qtbot):
    win = desk.open()
    win.resize(700, 500)
    gate, reached = asyncio.Event(), asyncio.Event()
    desk.provider_of(win).script(ScriptedTurn((TextChunk(LINES), Hold(gate, reached), TextChunk(LINES),
                                       StreamEnd("end_turn"))))
    desk.kernel.agents.send(win.agent_id, "go")
    qtbot.waitUntil(reached.is_set, timeout=WAIT_MS)
    _settle(win, qtbot)
    t = win.transcript
    bar = t.verticalScrollBar()
    assert bar.value() == bar.maximum() > 0
    bar.setValue(bar.maximum() // 3)  # the user scrolls up to read: the view stays where they put it
    assert not t._at_bottom
    bar.setValue(bar.maximum())  # and back down: following again
    gate.set()
    desk.until_state(win, "idle")
    _settle(win, qtbot)
    assert bar.value() == bar.maximum()
    assert _blank_below_last(win) <= MARGIN
    assert "line 59" in t.blocks[-1].text()


def test_a_view_scrolled_up_is_left_alone_by_new_output(desk, qtbot):
    win = desk.open()
    win.resize(700, 500)
    gate, reached = asyncio.Event(), asyncio.Event()
    desk.provider_of(win).script(ScriptedTurn((TextChunk(LINES), Hold(gate, reached), TextChunk(LINES),
                                       StreamEnd("end_turn"))))
    desk.kernel.agents.send(win.agent_id, "go")
    qtbot.waitUntil(reached.is_set, timeout=WAIT_MS)
    _settle(win, qtbot)
    bar = win.transcript.verticalScrollBar()
    bar.setValue(100)
    gate.set()
    desk.until_state(win, "idle")
    _settle(win, qtbot)
    assert bar.value() == 100 and bar.maximum() > 100
