"""The desktop from the keyboard, at 1024×700: focus where you type, shortcuts from every window, nothing hidden."""

from __future__ import annotations

import pytest

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.process_model import COL_KILL, COL_LEASES, COL_NAME, COL_STATE, COL_STARTED, COL_TOKENS
from desktop.sizing import fit
from kernel.providers.scripted import reply


def _active(main, widget) -> None:
    main.until(lambda: QApplication.activeWindow() is widget)


def test_ctrl_n_focuses_the_new_windows_message_box_so_space_types(main, qtbot, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-never-sent")  # the default provider is usable
    main.window.activateWindow()
    _active(main, main.window)
    qtbot.keyClick(main.window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    main.until(lambda: len(main.window.windows) == 1)
    (ask,) = main.window.windows.values()
    _active(main, ask)
    assert QApplication.focusWidget() is ask.input  # not Pause: a first Space must not pause the agent
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Space)
    assert ask.info.state == "idle" and ask.pause_button.text() == "Pause"


@pytest.mark.in_process  # a kernel without a key; the attached one has one
def test_without_a_key_the_new_window_focuses_open_settings_not_pause(main, qtbot):
    ask = main.window.new_ask()
    _active(main, ask)
    assert not ask.key_notice.isHidden()
    assert QApplication.focusWidget() is ask.settings_button


def test_shortcuts_work_from_an_ask_window(main, qtbot):
    a = main.spawn("scribe")
    ask = main.window.window_for(a)
    _active(main, ask)
    qtbot.keyClick(ask.input, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    _active(main, main.window)
    assert QApplication.focusWidget() is main.window.ledger_view.table

    main.window.window_for(a)
    _active(main, ask)
    qtbot.keyClick(ask.input, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)
    _active(main, main.window)
    assert QApplication.focusWidget() is main.window.process_view

    main.window.window_for(a)
    _active(main, ask)
    qtbot.keyClick(ask.input, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    main.until(lambda: len(main.kernel.agents.list()) == 2)


def _waiting_agent(main, name="scribe"):
    a = main.spawn(name)
    main.provider(a).script(reply(tools=(("fs_write", {"path": "a.md", "content": "x\n"}),)), reply("ok"))
    main.kernel.agents.send(a, "write a.md")
    main.until(lambda: main.desk.lease_dialogs.request_for(a) is not None)
    main.settle()
    return a


def _visible_windows():
    return {w for w in QApplication.topLevelWidgets() if w.isVisible()}


def test_a_waiting_request_shows_no_window_until_asked_and_is_flagged_everywhere(main, qtbot):
    main.window.activateWindow()
    _active(main, main.window)
    main.window.process_view.setFocus()
    before = _visible_windows()
    a = _waiting_agent(main)
    assert _visible_windows() == before  # no dialog, no Ask window: nothing appeared on its own
    assert main.desk.lease_dialogs.dialog_for(a) is None
    assert QApplication.activeWindow() is main.window and QApplication.focusWidget() is main.window.process_view
    model = main.window.processes
    tip = model.data(model.index(0, COL_STATE), Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("waiting \u2014 lease request") and "press Enter" in tip and "Ctrl+Shift+A" in tip
    status = main.window.statusBar().currentMessage()
    assert "waits for a fs.write lease" in status and "Ctrl+Shift+A" in status
    title, text = main.desk.lease_dialogs.notifier.last  # the desktop notification
    assert title == f"scribe ({a}) waits for a fs.write lease" and "a.md" in text and "Ctrl+Shift+A" in text

    qtbot.keyClick(main.window.process_view, Qt.Key.Key_A,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    dialog = main.desk.lease_dialogs.dialog_for(a)
    assert dialog is not None
    _active(main, dialog)
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    main.until(lambda: main.kernel.agents.get(a).state == "idle")
    main.until(lambda: main.window.statusBar().currentMessage() == "")
    assert main.desk.lease_dialogs.notifier.last is None


def test_activating_the_asking_window_does_not_bring_its_dialog_up(main, qtbot):
    a = _waiting_agent(main)
    ask = main.window.window_for(a)  # opened and activated (History, or the user's click on it)
    _active(main, ask)
    main.settle()
    assert main.desk.lease_dialogs.dialog_for(a) is None and QApplication.activeWindow() is ask
    assert ask.lease_notice.isVisibleTo(ask)
    qtbot.mouseClick(ask.lease_notice, Qt.MouseButton.LeftButton)  # a click on its flag is the user asking
    dialog = main.desk.lease_dialogs.dialog_for(a)
    assert dialog is not None and dialog.parentWidget() is ask
    _active(main, dialog)


def test_enter_on_a_waiting_row_brings_up_its_dialog(main, qtbot):
    a = _waiting_agent(main)
    view = main.window.process_view
    view.setCurrentIndex(main.window.processes.index(0, 0))
    qtbot.keyClick(view, Qt.Key.Key_Return)
    dialog = main.desk.lease_dialogs.dialog_for(a)
    assert dialog is not None
    _active(main, dialog)


def test_fit_clips_to_the_screen():
    assert fit((1280, 760), (1024, 700)) == (1008, 652)
    assert fit((1280, 760), (1920, 1080)) == (1280, 760)
    assert fit((780, 640), (1024, 700)) == (780, 640)
    assert fit((1280, 760), (300, 200)) == (300, 200)  # never above the screen, however small


def test_main_window_at_1024x700_keeps_state_and_kill_visible(main, qtbot):
    for name in ("scribe", "a-very-long-agent-name-that-cannot-possibly-fit-in-the-column", "docs"):
        main.spawn(name)
    win = main.window
    win.resize(1024, 700)
    qtbot.waitUntil(lambda: win.width() == 1024)
    assert win.minimumSizeHint().width() <= 1024 and win.minimumSizeHint().height() <= 700
    for width in (1024, 800, 640):
        win.resize(width, 700)
        main.until(lambda w=width: win.width() == w)
        QApplication.processEvents()
        view = win.process_view
        assert not view.horizontalScrollBar().isVisible()
        for col in (COL_STATE, COL_KILL):
            rect = view.visualRect(main.window.processes.index(1, col))
            assert not view.isColumnHidden(col)
            assert rect.left() >= 0 and rect.right() <= view.viewport().width(), (width, col, rect)
        ledger = win.ledger_view.table
        assert not ledger.horizontalScrollBar().isVisible()
    win.resize(1024, 700)
    main.until(lambda: win.width() == 1024)
    QApplication.processEvents()
    assert not any(win.process_view.isColumnHidden(c) for c in (COL_TOKENS, COL_LEASES))  # all but "started" fit


def test_live_leases_show_scope_and_time_left_at_1024(main, qtbot):
    a = main.spawn("a-rather-long-agent-name-that-elides-first")
    main.write(a, "notes.md", "x\n", grant=900.0)
    win = main.window
    win.resize(1024, 700)
    main.until(lambda: win.width() == 1024)
    QApplication.processEvents()
    view = win.process_view
    view.fit_columns()
    index = win.processes.index(0, COL_LEASES)
    text = index.data()
    assert text.startswith("fs.write \u00b7 ") and text.endswith("min left")
    assert not view.isColumnHidden(COL_LEASES)
    assert view.columnWidth(COL_LEASES) >= view.fontMetrics().horizontalAdvance(text)  # whole, not elided
    rect = view.visualRect(index)
    assert rect.left() >= 0 and rect.right() <= view.viewport().width()


def test_the_process_table_hides_columns_before_state_or_kill(main):
    main.spawn("scribe")
    view = main.window.process_view
    view.resize(300, 200)
    hidden = view.fit_columns()
    assert COL_STATE not in hidden and COL_KILL not in hidden and COL_STARTED in hidden


def test_ledger_paths_elide_in_the_middle_with_the_whole_path_in_a_tooltip(main):
    a = main.spawn("scribe")
    deep = "notes/" + "/".join(f"folder-{i}" for i in range(8)) + "/todo.md"
    (main.workspace / deep).parent.mkdir(parents=True)
    main.write(a, deep, "x\n")
    view = main.window.ledger_view
    assert view.table.textElideMode() == Qt.TextElideMode.ElideMiddle
    model = view.model
    row = next(i for i, e in enumerate(model.pager.entries) if e.kind == "fs.write")
    full = str(main.workspace / deep)
    for col in range(model.columnCount()):
        assert model.data(model.index(row, col), Qt.ItemDataRole.ToolTipRole) == full


def test_beside_a_long_lease_the_name_column_keeps_its_header_whole_at_1024(main):
    a = main.spawn("installer")
    main.kernel.leases.grant(a, "shell.exec.net", 900)
    main.kernel.leases.grant(a, "net.fetch", 900)  # "shell.exec.net · 15 min left +1"
    win = main.window
    win.resize(1024, 700)
    main.until(lambda: win.width() == 1024)
    QApplication.processEvents()
    view = win.process_view
    view.fit_columns()
    header = view.horizontalHeader()
    assert view.columnWidth(COL_NAME) >= header.fontMetrics().horizontalAdvance("name \u00b7 model")
    assert not any(view.isColumnHidden(c) for c in (COL_TOKENS, COL_LEASES))
    assert sum(view.columnWidth(c) for c in range(win.processes.columnCount()) if not view.isColumnHidden(c)) \
        <= view.viewport().width()  # nothing scrolls sideways
