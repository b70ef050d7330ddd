"""A lease dialog never grants by accident: it does not take the keyboard, and its grant buttons wait."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton

from kernel.core.events import LeaseGranted, LeaseRequestResolved
from kernel.providers.scripted import reply

from .test_leases import ask_to_write
from tests.service.attached import WAIT_MS


def test_space_and_enter_before_the_delay_grant_nothing(desk, qtbot):
    desk.dialogs.grant_delay_ms = 400
    win, dialog = ask_to_write(desk, qtbot, then="ok")
    assert not dialog.armed
    assert all(not b.isEnabled() for b in dialog.grant_buttons.values())
    assert not isinstance(QApplication.focusWidget(), QPushButton)  # the first focus is on no button
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    qtbot.keyClick(dialog, Qt.Key.Key_Enter)
    qtbot.keyClick(dialog, Qt.Key.Key_Space)
    qtbot.keyClick(dialog.default_button, Qt.Key.Key_Space)
    qtbot.mouseClick(dialog.default_button, Qt.MouseButton.LeftButton)
    dialog.grant(300.0)
    assert dialog.answered is None and desk.of(LeaseGranted) == []
    assert desk.kernel.leases.pending() and desk.dialogs.dialog_for(win.agent_id) is dialog

    qtbot.waitUntil(lambda: dialog.armed, timeout=WAIT_MS)  # the delay is real here; wait for its effect
    assert all(b.isEnabled() for b in dialog.grant_buttons.values())
    granted_from = desk.kernel.now()
    qtbot.keyClick(dialog, Qt.Key.Key_Return)  # now Enter is the default grant, as before
    desk.until_state(win, "idle")
    assert granted_from + 15 * 60 <= desk.of(LeaseGranted)[0].lease.until <= desk.kernel.now() + 15 * 60


def test_escape_denies_at_once_during_the_delay(desk, qtbot):
    desk.dialogs.grant_delay_ms = 60_000
    win, dialog = ask_to_write(desk, qtbot, then="Understood.")
    assert not dialog.armed
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    desk.until_state(win, "idle")
    assert [e.outcome for e in desk.of(LeaseRequestResolved)] == ["denied"] and desk.of(LeaseGranted) == []


def test_the_delay_starts_again_when_the_dialog_is_brought_up(desk, qtbot):
    desk.dialogs.grant_delay_ms = 200  # long enough to see, short enough to wait for
    _win, dialog = ask_to_write(desk, qtbot, then="ok")
    qtbot.waitUntil(lambda: dialog.armed and dialog.default_button.isEnabled(), timeout=WAIT_MS)
    desk.dialogs.bring_up(dialog.request.agent_id)
    assert not dialog.armed and not dialog.default_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.armed and dialog.default_button.isEnabled(), timeout=WAIT_MS)  # armed again later


def test_a_request_does_not_take_the_keyboard_from_another_window(desk, qtbot):
    asking = desk.open("scribe")
    typing = desk.open("tester")
    typing.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is typing, timeout=WAIT_MS)
    typing.input.setFocus()
    qtbot.keyClicks(typing.input, "half a sent")
    assert QApplication.focusWidget() is typing.input

    desk.provider_of(asking).script(reply(tools=(("fs_write", {"path": "a.md", "content": "x\n"}),)), reply("ok"))
    desk.kernel.agents.send(asking.agent_id, "write a.md")  # the request arrives on its own while the user types
    qtbot.waitUntil(lambda: desk.dialogs.dialog_for(asking.agent_id) is not None, timeout=WAIT_MS)
    dialog = desk.dialogs.dialog_for(asking.agent_id)
    qtbot.waitUntil(lambda: not desk.dialogs.settling, timeout=WAIT_MS)
    assert QApplication.focusWidget() is typing.input and QApplication.activeWindow() is typing
    assert dialog.isVisible() and dialog.request.id in desk.dialogs.waiting_to_come_up
    qtbot.keyClicks(typing.input, "ence")
    assert typing.input.toPlainText() == "half a sentence"
    assert dialog.answered is None and desk.of(LeaseGranted) == []

    # flagged in its Ask window, with how to answer
    assert asking.lease_notice.isVisibleTo(asking)
    text = asking.lease_notice.text()
    assert "waiting" in text and "lease request" in text and "fs.write" in text and "Ctrl+Shift+A" in text

    desk.dialogs.bring_up(asking.agent_id)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=WAIT_MS)
    assert dialog.request.id not in desk.dialogs.waiting_to_come_up
    qtbot.mouseClick(dialog.grant_buttons[300.0], Qt.MouseButton.LeftButton)
    desk.until_state(asking, "idle")
    assert not asking.lease_notice.isVisibleTo(asking)


def test_the_asking_window_itself_hands_the_keyboard_to_its_dialog(desk, qtbot):
    win = desk.open("scribe")
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=WAIT_MS)
    desk.provider_of(win).script(reply(tools=(("fs_write", {"path": "a.md", "content": "x\n"}),)), reply("ok"))
    desk.kernel.agents.send(win.agent_id, "write a.md")
    qtbot.waitUntil(lambda: desk.dialogs.dialog_for(win.agent_id) is not None, timeout=WAIT_MS)
    dialog = desk.dialogs.dialog_for(win.agent_id)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=WAIT_MS)
    assert dialog.request.id not in desk.dialogs.waiting_to_come_up


def test_a_300_line_diff_shrinks_and_never_overlaps_the_buttons(desk, qtbot):
    big = "".join(f"line {i}: the quick brown fox jumps over the lazy dog\n" for i in range(300))
    win, dialog = ask_to_write(desk, qtbot, path="big.txt", content=big, then="ok")
    screen = dialog.screen().availableGeometry()
    assert dialog.height() <= screen.height() and dialog.width() <= screen.width()
    for height in (dialog.height(), 420, 360):  # a small screen: the diff gives way, nothing overlaps
        dialog.resize(dialog.width(), height)
        qtbot.waitUntil(lambda h=height: dialog.height() == h, timeout=2000)
        layout = dialog.layout()
        layout.activate()
        diff = dialog.diff_view.geometry()
        assert diff.height() >= dialog.diff_view.minimumHeight() > 0
        assert dialog.grant_label.geometry().top() > diff.bottom(), height
        assert dialog.default_button.geometry().top() > dialog.grant_label.geometry().bottom()
        assert dialog.countdown_label.geometry().bottom() <= dialog.height()
