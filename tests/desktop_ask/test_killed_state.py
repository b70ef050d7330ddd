"""A killed agent's window ends in a final state: no card still waits, and it says how to go on."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop.ask_window import AskWindow

from .test_leases import ask_to_write


def test_kill_while_waiting_ends_the_card_and_says_how_to_continue(desk, qtbot):
    win, _dialog = ask_to_write(desk, qtbot, then=None)
    card = next(iter(win.transcript.cards.values()))
    assert "waiting for a lease" in card.status_label.text()
    qtbot.mouseClick(win.stop_button, Qt.MouseButton.LeftButton)
    desk.until_state(win, "killed")
    assert card.outcome is not None and card.outcome.kind == "cancelled"
    assert "waiting" not in card.status_label.text() and "running" not in card.status_label.text()
    assert card.reason_label.text() == "not finished: the agent was stopped"
    placeholder = win.input.placeholderText()
    assert "Enter sends" not in placeholder and "Ctrl+N" in placeholder
    assert not win.lease_notice.isVisibleTo(win)
    assert "Ctrl+N starts a new agent" in win.transcript.blocks[-1].text()


def test_a_reopened_killed_window_has_no_running_card(desk, qtbot):
    win, _dialog = ask_to_write(desk, qtbot, then=None)
    qtbot.mouseClick(win.stop_button, Qt.MouseButton.LeftButton)
    desk.until_state(win, "killed")
    again = AskWindow(desk.kernel, win.agent_id, desk.bridge, lambda: None)
    qtbot.addWidget(again)
    assert again.transcript.cards, "the call is in the history"
    assert all(c.outcome is not None for c in again.transcript.cards.values())
    assert "Ctrl+N" in again.input.placeholderText()
