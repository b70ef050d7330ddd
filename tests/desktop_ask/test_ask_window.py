"""The Ask window against a real kernel: streaming, several windows at once, budget, keys, failures."""

from __future__ import annotations

import pytest

import asyncio

from PySide6.QtCore import Qt

from kernel.core.errors import ProviderError
from kernel.providers.base import StreamEnd, TextChunk, UsageReport
from kernel.providers.scripted import Hold, ScriptedTurn, reply
from kernel.config.settings import SettingsStore, home
from tests.service.attached import WAIT_MS


def send(qtbot, win, text: str) -> None:
    qtbot.keyClicks(win.input, text)
    qtbot.keyClick(win.input, Qt.Key.Key_Return)


def held_step(first: str, second: str) -> tuple[ScriptedTurn, asyncio.Event, asyncio.Event]:
    gate, reached = asyncio.Event(), asyncio.Event()
    step = ScriptedTurn((UsageReport(input_tokens=10, output_tokens=0), TextChunk(first), Hold(gate, reached),
                 TextChunk(second), UsageReport(output_tokens=5), StreamEnd("end_turn")))
    return step, gate, reached


def test_enter_sends_shift_enter_starts_a_new_line(desk, qtbot):
    win = desk.open()
    desk.provider_of(win).script(reply("fine"))
    qtbot.keyClicks(win.input, "line one")
    qtbot.keyClick(win.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(win.input, "line two")
    assert win.input.toPlainText() == "line one\nline two"
    qtbot.keyClick(win.input, Qt.Key.Key_Return)
    assert win.input.toPlainText() == "" and win.input.isEnabled() and not win.send_button.isEnabled()
    desk.until_state(win, "idle")
    assert win.input.isEnabled() and win.send_button.isEnabled()
    assert win.transcript.blocks[0].raw == "line one\nline two"
    assert not win.transcript.empty.isVisibleTo(win)


def test_streaming_markdown_renders_heading_and_code_block_as_it_arrives(desk, qtbot):
    win = desk.open()
    step, gate, reached = held_step("## Plan\n\nFirst:\n\n```python\nprint('hi')\n", "```\n\nThat is all.")
    desk.provider_of(win).script(step)
    send(qtbot, win, "plan it")
    qtbot.waitUntil(reached.is_set, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: win.transcript.current is not None, timeout=WAIT_MS)  # shown at the next frame
    block = win.transcript.current
    qtbot.waitUntil(lambda: "<h2>Plan</h2>" in block.text() and "<pre" in block.text(), timeout=WAIT_MS)
    assert "print(&#x27;hi&#x27;)" in block.text() or "print('hi')" in block.text()
    assert win.state_badge.state == "running"
    gate.set()
    desk.until_state(win, "idle")
    assert "That is all." in block.text() and block.text().count("<pre") == 1


@pytest.mark.in_process  # counts renders against deltas the test feeds in step
def test_deltas_are_throttled_not_rendered_one_by_one(desk, qtbot):
    win = desk.open()
    desk.provider_of(win).script(reply("word " * 200, chunks=200))
    send(qtbot, win, "talk")
    desk.until_state(win, "idle")
    block = win.transcript.blocks[-1]
    assert block.raw == "word " * 200
    assert block.renders < 20


@pytest.mark.in_process  # holds three streams at once (the fake server holds one script)
def test_three_windows_stream_at_once(desk, qtbot):
    wins, gates, reached = [], [], []
    for name in ("scribe", "tester", "docs"):
        win = desk.open(name)
        step, gate, got_there = held_step(f"{name} begins ", f"and {name} ends.")
        desk.provider_of(win).script(step)
        wins.append(win), gates.append(gate), reached.append(got_there)
    for win in wins:
        send(qtbot, win, "go")
    qtbot.waitUntil(lambda: all(r.is_set() for r in reached), timeout=WAIT_MS)
    for win in wins:
        qtbot.waitUntil(lambda w=win: w.transcript.current is not None and
                        f"{w.info.name} begins" in w.transcript.current.text(), timeout=WAIT_MS)
        assert win.state_badge.state == "running"
    assert all(w.info.state == "running" for w in wins)
    for gate in gates:
        gate.set()
    qtbot.waitUntil(lambda: all(w.info.state == "idle" for w in wins), timeout=WAIT_MS)
    for win in wins:
        name = win.info.name
        text = win.transcript.blocks[-1].raw
        assert text == f"{name} begins and {name} ends."
        assert win.windowTitle() == f"{name} \u00b7 {win.agent_id}"


def test_budget_pause_raise_and_resume_continues(desk, qtbot):
    win = desk.open(budget=20)
    provider = desk.provider_of(win)
    provider.script(reply("first answer", usage=(10, 15)))
    send(qtbot, win, "start")
    desk.until_state(win, "idle")
    assert win.budget_bar.label.text() == "25 / 20 tokens"
    send(qtbot, win, "more please")
    desk.until_state(win, "paused")
    assert "budget reached" in win.reason_label.text()
    assert win.state_badge.state == "paused" and win.pause_button.text() == "Resume"

    qtbot.mouseClick(win.raise_button, Qt.MouseButton.LeftButton)
    dialog = win.raise_dialog
    assert dialog.windowModality() == Qt.WindowModality.WindowModal
    assert dialog.intValue() == 10_025
    dialog.setIntValue(1000)
    dialog.accept()
    qtbot.waitUntil(lambda: win.budget_bar.label.text() == "25 / 1,000 tokens", timeout=WAIT_MS)

    provider.script(reply("continuing where we left off"))
    qtbot.mouseClick(win.pause_button, Qt.MouseButton.LeftButton)
    desk.until_state(win, "idle")
    assert win.transcript.blocks[-1].raw == "continuing where we left off"
    assert win.pause_button.text() == "Pause"
    provider.assert_done()


def test_pause_while_running_pauses_before_the_next_request(desk, qtbot):
    win = desk.open()
    step, gate, reached = held_step("thinking ", "done")
    desk.provider_of(win).script(step)
    send(qtbot, win, "work")
    qtbot.waitUntil(reached.is_set, timeout=WAIT_MS)
    qtbot.mouseClick(win.pause_button, Qt.MouseButton.LeftButton)
    assert "Pausing" in win.status_label.text()
    gate.set()
    qtbot.waitUntil(lambda: win.info.state in ("idle", "paused"), timeout=WAIT_MS)


@pytest.mark.in_process  # a kernel without a key; the attached one has one
def test_no_provider_key_says_so_and_offers_settings(desk, qtbot):
    win = desk.open("keyless", provider="anthropic")
    assert win.key_notice.isVisibleTo(win)
    assert "No API key is set for anthropic" in win.key_label.text()
    assert "ANTHROPIC_API_KEY" in win.key_label.text()
    assert not win.send_button.isEnabled()
    win.input.setPlainText("hello?")
    win.send()  # refused quietly: no crash, no hang, nothing sent
    assert win.info.state == "idle" and desk.kernel.agents.conversation(win.agent_id) == ()
    qtbot.mouseClick(win.settings_button, Qt.MouseButton.LeftButton)
    assert desk.settings_opened == 1

    SettingsStore(home()).save_key("anthropic", "sk-test-not-real")
    with qtbot.waitSignal(desk.bridge.tick, timeout=WAIT_MS):
        pass
    assert not win.key_notice.isVisibleTo(win) and win.send_button.isEnabled()


@pytest.mark.in_process  # a scripted ProviderError
def test_a_failed_agent_shows_its_reason(desk, qtbot):
    win = desk.open()
    desk.provider_of(win).script(ScriptedTurn((ProviderError("scripted", "auth", "invalid API key (401)", status=401),)))
    send(qtbot, win, "hello")
    desk.until_state(win, "failed")
    notice = win.transcript.blocks[-1]
    assert "invalid API key (401)" in notice.text() and "failed" in notice.text()
    assert "invalid API key" in win.reason_label.text() and win.state_badge.state == "failed"
    assert win.send_button.isEnabled()  # sending again continues the conversation


def test_history_is_shown_when_the_window_opens_late(desk, qtbot):
    win = desk.open()
    desk.provider_of(win).script(reply("earlier answer"))
    send(qtbot, win, "earlier question")
    desk.until_state(win, "idle")
    from desktop.ask_window import AskWindow

    late = AskWindow(desk.kernel, win.agent_id, desk.bridge, lambda: None)
    qtbot.addWidget(late)
    assert [b.raw for b in late.transcript.blocks] == ["earlier question", "earlier answer"]


def test_a_reply_finished_in_the_background_becomes_selectable_when_its_window_is_activated(desk, qtbot):
    """Settling a long reply into a label is one of the desktop's longest frames: a window in the
    background shows the finished reply as it streamed, and settles it once it comes to the front."""
    from PySide6.QtWidgets import QApplication

    win = desk.open()
    other = desk.open("tester")
    desk.provider_of(win).script(reply("a finished reply", chunks=3))
    other.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is other, timeout=WAIT_MS)
    desk.kernel.agents.send(win.agent_id, "go")
    desk.until_state(win, "idle")
    block = win.transcript.blocks[-1]
    qtbot.waitUntil(lambda: desk.bridge.frames.idle, timeout=WAIT_MS)
    assert block.raw == "a finished reply" and not block.labels and "a finished reply" in block.live.text()
    win.activateWindow()
    qtbot.waitUntil(lambda: len(block.labels) == 1 and block.live.isHidden(), timeout=WAIT_MS)
    assert "a finished reply" in block.text()
