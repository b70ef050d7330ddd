"""Keyboard only, through the Automations window and Settings: every key here is a ``qtbot.keyClick``.

Tab goes through every button and table of the Automations window and comes back round (the tables let Tab
out; it used to move cell to cell inside them for ever), each Alt letter names one button, the outward
panel's "It was not sent / sent / Check again" answer their letters, Ctrl+, opens Settings, and from there
Tab reaches Automations… and the tab bar's arrows reach the Web page. Checked by hand under Xvfb with
xdotool at 1024×700 too (2026-12-01).
"""

from __future__ import annotations

import pytest

import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QTabBar

from kernel.api import Automation, PolicyItem
from kernel.providers.scripted import ScriptedProvider, reply
from ledger import USER
from tests.mail.test_unknown_outward import seed_unknown

ALT = Qt.KeyboardModifier.AltModifier


def _active(main, widget) -> None:
    widget.activateWindow()
    main.until(lambda: QApplication.activeWindow() is widget)


def _tab(main, qtbot):
    here = QApplication.focusWidget()
    assert here is not None, "the keyboard's focus is nowhere"
    qtbot.keyClick(here, Qt.Key.Key_Tab)
    return QApplication.focusWidget()


def _automations_with_an_inbox(main):
    """A refused run in the Inbox and two mails not known to have gone out, and the window open on them."""
    provider = main.providers.setdefault("scripted-auto", ScriptedProvider())
    main.kernel.automations.add(Automation(
        id="", name="Notes digest", objective="Summarise notes/", schedule="0 7 * * 1-5", timezone="Europe/Berlin",
        workspace=str(main.workspace), provider="scripted-auto", model="test-model",
        policy=(PolicyItem("fs.read", 600.0),)))
    provider.script(reply(tools=(("fs_write", {"path": "x.md", "content": "x"}),)), reply("Could not write x.md."))
    first, second = seed_unknown(main.ledger, "k-1", "Minutes"), seed_unknown(main.ledger, "k-2", "Room")
    qtbot = main.qtbot
    _active(main, main.window)
    qtbot.keyClick(main.window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    main.until(lambda: main.window.automations_window is not None)
    window = main.window.automations_window
    _active(main, window)
    qtbot.keyClick(window, Qt.Key.Key_R, ALT)  # Run now
    main.until(lambda: window.inbox.rowCount() == 1)
    return window, first, second


@pytest.mark.in_process  # seeds the ledger directly
def test_tab_reaches_every_control_of_the_automations_window_and_comes_back(main, qtbot):
    window, _first, _second = _automations_with_an_inbox(main)
    panel = window.outward
    window.buttons["new"].setFocus()
    seen = [QApplication.focusWidget()]
    for _ in range(40):
        seen.append(_tab(main, qtbot))
        if seen[-1] is window.buttons["new"]:
            break
    else:
        raise AssertionError(f"Tab never came back to New…: {[type(w).__name__ for w in seen]}")
    expected = [*window.buttons.values(), *panel.buttons.values(), window.list, window.history, window.inbox,
                panel.table, panel.message]
    assert not [w for w in expected if w not in seen], "not reached by Tab"
    for table in (window.list, window.inbox, panel.table):  # and inside a table, the arrows move
        table.setFocus()
        row = table.currentRow()
        qtbot.keyClick(table, Qt.Key.Key_Down)
        assert table.currentRow() == min(row + 1, table.rowCount() - 1)


@pytest.mark.in_process  # seeds the ledger directly
def test_each_alt_letter_names_one_button_and_the_outward_answers_work_by_letter(main, qtbot):
    window, first, second = _automations_with_an_inbox(main)
    panel = window.outward
    for _state in ("running", "paused"):
        buttons = [b for b in window.findChildren(QAbstractButton) if b.isVisibleTo(window)]
        letters = [m.group(1).lower() for b in buttons for m in [re.search(r"&(\w)", b.text())] if m]
        assert len(letters) == len(buttons) == 10 and len(set(letters)) == len(letters), letters
        if window.buttons["pause"].text() == "&Pause":
            window.buttons["pause"].click()  # paused: the button says Resume, and it too has a letter of its own
            main.until(lambda: window.buttons["pause"].text() == "Res&ume")

    panel.table.setFocus()
    qtbot.keyClick(panel.table, Qt.Key.Key_G, ALT)  # Check again: no account here, said in words
    main.until(lambda: panel.pending is None and "no account set up" in panel.status.text())
    assert panel.table.rowCount() == 2
    newest = panel.selected()
    qtbot.keyClick(panel.table, Qt.Key.Key_O, ALT)  # It was not sent
    main.until(lambda: panel.table.rowCount() == 1)
    qtbot.keyClick(panel.table, Qt.Key.Key_S, ALT)  # It was sent
    main.until(lambda: panel.table.rowCount() == 0)
    said = {o.cause: o.status for o in main.ledger.page(kind="outcome") if o.actor == USER}
    other = first if newest.intent_seq == second.seq else second
    assert said == {newest.intent_seq: "failed", other.seq: "done"}
    qtbot.keyClick(window, Qt.Key.Key_N, ALT)  # Alt+N is New… alone
    main.until(lambda: QApplication.activeModalWidget() is not None)
    form = QApplication.activeModalWidget()
    assert form.windowTitle() == "New automation"
    qtbot.keyClick(form, Qt.Key.Key_Escape)
    main.until(lambda: not form.isVisible())


def _settings():
    from desktop.settings_dialog import SettingsDialog

    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, SettingsDialog) and w.isVisible()), None)


def test_ctrl_comma_opens_settings_whose_automations_and_web_pages_tab_reaches(main, qtbot):
    _active(main, main.window)
    qtbot.keyClick(main.window.process_view, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    main.until(lambda: _settings() is not None)
    dialog = _settings()
    _active(main, dialog)
    seen = []
    for _ in range(60):
        seen.append(_tab(main, qtbot))
        if seen[-1] is dialog.automations_button:
            break
    else:
        raise AssertionError("Tab never reached Automations…")
    assert dialog.body.viewport().rect().intersects(
        dialog.automations_button.geometry().translated(dialog.automations_button.parentWidget().mapTo(
            dialog.body.viewport(), dialog.automations_button.parentWidget().rect().topLeft())))  # scrolled to
    qtbot.keyClick(dialog.automations_button, Qt.Key.Key_Space)
    main.until(lambda: dialog.automations_dialog is not None and dialog.automations_dialog.isVisible())
    page = dialog.automations_dialog
    _active(main, page)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    main.until(lambda: not page.isVisible())
    _active(main, dialog)  # a window manager gives the focus back; the offscreen platform does not

    bar = next(w for w in seen if isinstance(w, QTabBar))  # Tab reached the providers' tab bar on the way
    bar.setFocus()
    for _ in range(bar.count()):
        if dialog.tabs.currentWidget() is dialog.web_tab:
            break
        qtbot.keyClick(bar, Qt.Key.Key_Right)
    assert dialog.tabs.currentWidget() is dialog.web_tab
    reached = [_tab(main, qtbot) for _ in range(6)]
    assert dialog.web_tab.allow_private in reached  # the Web page's last control, from the keyboard


def test_tab_leaves_the_process_table_and_the_ledger(main, qtbot):
    main.spawn("scribe")
    main.window.window_for(main.kernel.agents.list()[0].id).close()
    _active(main, main.window)
    for table in (main.window.process_view, main.window.ledger_view.table):
        table.setFocus()
        assert _tab(main, qtbot) is not table
