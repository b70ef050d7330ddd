"""A lease dialog never grants by accident: it shows only when asked, Enter presses the focused button,
its grant buttons wait for the typing to stop, and the keyboard goes back where the user was typing."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.lease_dialog import LeaseDialog
from kernel.core.events import LeaseGranted, LeaseRequestResolved
from kernel.providers.scripted import reply

from .test_leases import ask_to_write
from tests.service.attached import WAIT_MS


def _active(qtbot, widget) -> None:
    qtbot.waitUntil(lambda: QApplication.activeWindow() is widget, timeout=WAIT_MS)


def _lease_dialogs_shown() -> list:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, LeaseDialog) and w.isVisible()]


def _tab_to(qtbot, dialog, button) -> None:
    """Tab through the dialog until ``button`` has the focus (as a person does)."""
    for _ in range(12):
        if dialog.focusWidget() is button:
            return
        qtbot.keyClick(dialog.focusWidget() or dialog, Qt.Key.Key_Tab)
    raise AssertionError(f"Tab never reached {button.text()}")


def test_space_and_enter_before_the_delay_grant_nothing(desk, qtbot):
    t = [100.0]  # the dialog's clock: a loaded machine cannot let the delay pass between two keys
    desk.dialogs.clock = lambda: t[0]
    desk.dialogs.grant_delay_ms = 400
    win, dialog = ask_to_write(desk, qtbot, then="ok")
    _active(qtbot, dialog)
    assert not dialog.armed
    assert dialog.focusWidget() is dialog.default_button  # the Settings default takes the first focus
    qtbot.keyClick(dialog.default_button, Qt.Key.Key_Return)
    qtbot.keyClick(dialog.default_button, Qt.Key.Key_Enter)
    qtbot.keyClick(dialog.default_button, Qt.Key.Key_Space)
    qtbot.mouseClick(dialog.default_button, Qt.MouseButton.LeftButton)
    dialog.grant(300.0)
    assert dialog.answered is None and desk.of(LeaseGranted) == []
    assert desk.kernel.leases.pending() and desk.dialogs.dialog_for(win.agent_id) is dialog

    t[0] += 0.4
    qtbot.waitUntil(lambda: dialog.armed, timeout=WAIT_MS)
    granted_from = desk.kernel.now()
    qtbot.keyClick(dialog.default_button, Qt.Key.Key_Return)  # Enter presses the focused button: the default
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
    t = [100.0]
    desk.dialogs.clock = lambda: t[0]
    desk.dialogs.grant_delay_ms = 750
    _win, dialog = ask_to_write(desk, qtbot, then="ok")
    t[0] += 0.8
    assert dialog.armed
    desk.dialogs.bring_up(dialog.request.agent_id)
    assert not dialog.armed
    t[0] += 0.8
    assert dialog.armed
    dialog.deny()


def test_enter_presses_the_focused_button_and_no_button_is_the_default(desk, qtbot):
    win, dialog = ask_to_write(desk, qtbot, then="Understood.")
    _active(qtbot, dialog)
    buttons = (*dialog.grant_buttons.values(), dialog.deny_button)
    assert not any(b.isDefault() or b.autoDefault() for b in buttons)
    _tab_to(qtbot, dialog, dialog.deny_button)
    qtbot.keyClick(dialog.deny_button, Qt.Key.Key_Return)  # Tab to Deny + Enter denies
    desk.until_state(win, "idle")
    assert [e.outcome for e in desk.of(LeaseRequestResolved)] == ["denied"] and desk.of(LeaseGranted) == []


def test_tab_to_one_hour_and_enter_grants_one_hour(desk, qtbot):
    win, dialog = ask_to_write(desk, qtbot, then="ok")
    _active(qtbot, dialog)
    _tab_to(qtbot, dialog, dialog.grant_buttons[3600.0])
    granted_from = desk.kernel.now()
    qtbot.keyClick(dialog.grant_buttons[3600.0], Qt.Key.Key_Enter)
    desk.until_state(win, "idle")
    lease = desk.of(LeaseGranted)[0].lease
    assert granted_from + 3600 <= lease.until <= desk.kernel.now() + 3600


def test_enter_on_the_diff_presses_nothing(desk, qtbot):
    _win, dialog = ask_to_write(desk, qtbot, then="ok")
    _active(qtbot, dialog)
    dialog.diff_view.setFocus()
    qtbot.keyClick(dialog.diff_view, Qt.Key.Key_Return)
    assert dialog.answered is None and desk.of(LeaseGranted) == []
    dialog.deny()


def test_a_typist_who_keeps_typing_elsewhere_cannot_pass_the_delay(desk, qtbot):
    """The delay counts from the last keystroke anywhere in the application, not from the dialog coming up."""
    t = [100.0]
    desk.dialogs.clock = lambda: t[0]
    desk.dialogs.grant_delay_ms = 750
    typing = desk.open("tester")
    win, dialog = ask_to_write(desk, qtbot, then="ok")
    hour = dialog.grant_buttons[3600.0]
    for _ in range(5):  # someone types in another window, a key every 0.3 s, long past the delay
        t[0] += 0.3
        qtbot.keyClick(typing.input, Qt.Key.Key_X)
        assert not dialog.armed
        dialog.grant(3600.0)
        qtbot.mouseClick(hour, Qt.MouseButton.LeftButton)
    hour.setFocus()
    t[0] += 0.3
    qtbot.keyClick(hour, Qt.Key.Key_Return)  # Enter itself is an answer key: it does not hold, but typing did
    assert dialog.answered is None and desk.of(LeaseGranted) == []
    t[0] += 0.5  # 0.8 s since the last keystroke
    assert dialog.armed
    qtbot.keyClick(hour, Qt.Key.Key_Return)
    desk.until_state(win, "idle")
    assert desk.of(LeaseGranted)[0].lease.until >= desk.kernel.now() + 3500


def test_a_request_shows_nothing_and_the_keyboard_stays_and_comes_back(desk, qtbot):
    asking = desk.open("scribe")
    typing = desk.open("tester")
    asking.answer_requested.connect(desk.dialogs.bring_up)  # as the main window wires it
    typing.activateWindow()
    _active(qtbot, typing)
    typing.input.setFocus()
    qtbot.keyClicks(typing.input, "half a sent")

    desk.provider_of(asking).script(reply(tools=(("fs_write", {"path": "a.md", "content": "x\n"}),)), reply("ok"))
    desk.kernel.agents.send(asking.agent_id, "write a.md")  # the request arrives on its own while the user types
    qtbot.waitUntil(lambda: desk.dialogs.request_for(asking.agent_id) is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: asking.lease_notice.isVisibleTo(asking), timeout=WAIT_MS)
    assert _lease_dialogs_shown() == [] and desk.dialogs.dialog_for(asking.agent_id) is None
    assert QApplication.focusWidget() is typing.input and QApplication.activeWindow() is typing
    qtbot.keyClicks(typing.input, "ence")
    qtbot.keyClick(typing.input, Qt.Key.Key_Space)
    assert typing.input.toPlainText() == "half a sentence "
    assert desk.of(LeaseGranted) == []

    # flagged in its Ask window, with how to answer; a click on the flag is the user asking
    text = asking.lease_notice.text()
    assert "waiting" in text and "lease request" in text and "fs.write" in text and "Ctrl+Shift+A" in text
    assert "click" in text
    qtbot.mouseClick(asking.lease_notice, Qt.MouseButton.LeftButton)
    dialog = desk.dialogs.dialog_for(asking.agent_id)
    assert dialog is not None
    _active(qtbot, dialog)
    assert dialog.focusWidget() is dialog.default_button
    qtbot.mouseClick(dialog.grant_buttons[300.0], Qt.MouseButton.LeftButton)
    desk.until_state(asking, "idle")
    assert not asking.lease_notice.isVisibleTo(asking)
    _active(qtbot, typing)  # the keyboard is back where the user was typing
    qtbot.waitUntil(lambda: QApplication.focusWidget() is typing.input, timeout=WAIT_MS)


def test_even_the_asking_window_keeps_its_keyboard(desk, qtbot):
    win = desk.open("scribe")
    win.activateWindow()
    _active(qtbot, win)
    desk.provider_of(win).script(reply(tools=(("fs_write", {"path": "a.md", "content": "x\n"}),)), reply("ok"))
    desk.kernel.agents.send(win.agent_id, "write a.md")
    qtbot.waitUntil(lambda: desk.dialogs.request_for(win.agent_id) is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: win.lease_notice.isVisibleTo(win), timeout=WAIT_MS)
    assert _lease_dialogs_shown() == [] and QApplication.activeWindow() is win


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
