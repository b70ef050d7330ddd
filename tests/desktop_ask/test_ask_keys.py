"""The Ask window from the keyboard: the box keeps the keyboard during a turn, Esc and Ctrl+W close the view,
Ctrl+. asks before it stops the agent."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from kernel.providers.scripted import reply
from tests.service.attached import WAIT_MS

from .test_ask_window import held_step, send


def _active(qtbot, widget) -> None:
    widget.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is widget, timeout=WAIT_MS)


def test_the_box_keeps_the_keyboard_while_the_agent_works_and_keeps_what_is_typed(desk, qtbot):
    win = desk.open()
    _active(qtbot, win)
    step, gate, reached = held_step("Working on it", " — done.")
    desk.provider_of(win).script(step, reply("Second answer."))
    send(qtbot, win, "first")
    qtbot.waitUntil(reached.is_set, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: win.info.state == "running", timeout=WAIT_MS)
    assert QApplication.focusWidget() is win.input and win.input.isEnabled()
    assert QApplication.focusWidget() is not win.pause_button
    qtbot.keyClicks(QApplication.focusWidget(), "a follow")
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Space)  # the Space that used to press Pause
    qtbot.keyClicks(QApplication.focusWidget(), "up")
    qtbot.keyClick(win.input, Qt.Key.Key_Return)  # Enter during the turn: kept, not lost, not sent
    assert win.input.toPlainText() == "a follow up" and "once the turn is over" in win.status_label.text()
    assert desk.kernel.agents.get(win.agent_id).state == "running"  # not paused
    gate.set()
    desk.until_state(win, "idle")
    assert win.input.toPlainText() == "a follow up" and QApplication.focusWidget() is win.input
    assert win.send_button.isEnabled() and win.status_label.text() == ""
    qtbot.keyClick(win.input, Qt.Key.Key_Return)  # sent after
    desk.until_state(win, "idle")
    assert [b.raw for b in win.transcript.blocks][-2:] == ["a follow up", "Second answer."] or \
        "a follow up" in [b.raw for b in win.transcript.blocks]


def test_a_click_on_pause_leaves_the_keyboard_in_the_box(desk, qtbot):
    win = desk.open()
    _active(qtbot, win)
    assert win.pause_button.focusPolicy() == Qt.FocusPolicy.TabFocus
    qtbot.mouseClick(win.pause_button, Qt.MouseButton.LeftButton)
    assert QApplication.focusWidget() is win.input


def test_esc_and_ctrl_w_close_the_window_and_the_agent_keeps_running(desk, qtbot):
    for keys in ((Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier), (Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)):
        win = desk.open()
        _active(qtbot, win)
        closed: list[str] = []
        win.view_closed.connect(closed.append)
        qtbot.keyClick(win.input, *keys)
        qtbot.waitUntil(lambda: not win.isVisible(), timeout=WAIT_MS)
        assert closed == [win.agent_id]
        assert desk.kernel.agents.get(win.agent_id).state == "idle"  # the agent is still there, not killed


def test_ctrl_period_asks_first_naming_the_agent(desk, qtbot):
    win = desk.open("scribe")
    _active(qtbot, win)
    qtbot.keyClick(win.input, Qt.Key.Key_Period, Qt.KeyboardModifier.ControlModifier)
    box = win.stop_prompt
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert f"scribe ({win.agent_id})" in box.text() and box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is box, timeout=WAIT_MS)
    qtbot.keyClick(box, Qt.Key.Key_Return)  # Enter: Cancel, the default
    qtbot.waitUntil(lambda: not box.isVisible(), timeout=WAIT_MS)
    assert desk.kernel.agents.get(win.agent_id).state == "idle"
    _active(qtbot, win)
    qtbot.keyClick(win.input, Qt.Key.Key_Period, Qt.KeyboardModifier.ControlModifier)
    box = win.stop_prompt
    stop = next(b for b in box.buttons() if b.text() == "Stop scribe")
    stop.click()
    desk.until_state(win, "killed")
