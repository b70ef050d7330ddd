"""The process table follows kernel events: agents, states, tokens, leases, Kill."""

from __future__ import annotations

import pytest

import asyncio

from PySide6.QtCore import Qt

from desktop.process_model import COL_KILL, COL_LEASES, COL_NAME, COL_STATE, COL_TOKENS
from kernel.core.events import LeaseExpired
from kernel.providers.scripted import Hold, ScriptedTurn, reply
from kernel.providers.base import StreamEnd, TextChunk


def _cell(main, row: int, col: int, role=Qt.ItemDataRole.DisplayRole):
    model = main.window.processes
    return model.data(model.index(row, col), role)


def test_agents_and_states_appear_as_events_arrive(main):
    model = main.window.processes
    assert model.rowCount() == 0
    a = main.spawn("scribe")
    b = main.spawn("tester")
    assert model.rowCount() == 2
    assert _cell(main, 0, COL_NAME) == "scribe" and _cell(main, 1, COL_NAME) == "tester"
    assert _cell(main, 0, COL_STATE) == "○ idle"

    gate, reached = asyncio.Event(), asyncio.Event()
    main.provider(a).script(ScriptedTurn((TextChunk("hel"), Hold(gate, reached), TextChunk("lo"), StreamEnd("end_turn"))))
    main.kernel.agents.send(a, "hi")
    main.until(reached.is_set)
    assert _cell(main, 0, COL_STATE).endswith("running")
    assert _cell(main, 0, COL_STATE, Qt.ItemDataRole.ForegroundRole).name() != \
        _cell(main, 1, COL_STATE, Qt.ItemDataRole.ForegroundRole).name()
    gate.set()
    main.until(lambda: _cell(main, 0, COL_STATE) == "○ idle")

    main.provider(b).script(reply("ok", usage=(1200, 300)))
    main.kernel.agents.send(b, "count")
    main.until(lambda: main.kernel.agents.get(b).state == "idle")
    assert _cell(main, 1, COL_TOKENS) == "1.5k / 200k"
    assert "headline" not in main.window.status.headline.text()
    assert "running" in main.window.status.headline.text()


def test_kill_from_the_table_ends_the_agent_and_its_lease(main, qtbot):
    a = main.spawn("scribe")
    main.write(a, "notes.md", "hello\n")
    view = main.window.process_view
    assert _cell(main, 0, COL_LEASES) == "fs.write \u00b7 5 min left"
    rect = view.visualRect(main.window.processes.index(0, COL_KILL))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    main.until(lambda: main.kernel.agents.get(a).state == "killed")
    assert _cell(main, 0, COL_STATE).endswith("killed")
    assert _cell(main, 0, COL_LEASES) == "–"
    assert main.kernel.leases.list(a) == []
    assert _cell(main, 0, COL_KILL) == ""  # no button on a killed row


@pytest.mark.in_process  # moves the kernel's clock
def test_lease_tooltip_counts_down_and_expired_leases_go(main):
    a = main.spawn("scribe")
    main.write(a, "notes.md", "hello\n", grant=300.0)
    tip = lambda: _cell(main, 0, COL_LEASES, Qt.ItemDataRole.ToolTipRole)  # noqa: E731
    assert tip() == "fs.write · 5 min left"
    main.clock.advance(130)
    main.desk.bridge.tick.emit()
    assert tip() == "fs.write · 3 min left"
    main.clock.advance(150)
    main.desk.bridge.tick.emit()
    assert tip() == "fs.write · 20 s left"
    main.clock.advance(30)
    main.desk.bridge.tick.emit()  # gone at once on the tick, before the kernel's sweep says so
    assert _cell(main, 0, COL_LEASES) == "–"
    assert tip() == "No live leases"
    main.until(lambda: any(isinstance(e, LeaseExpired) for e in main.events))
    assert main.window.status.counts.live_leases() == 0


def test_context_menu_actions(main):
    a = main.spawn("scribe")
    main.write(a, "notes.md", "x\n")
    view = main.window.process_view
    menu = view.build_menu(a)
    titles = [act.text() for act in menu.actions()]
    assert titles[:1] == ["Open window"] and "Raise budget…" in titles and f"Kill {a} scribe…" in titles
    revoke = next(act.menu() for act in menu.actions() if act.menu() is not None)
    (lease_action,) = revoke.actions()
    assert lease_action.text().startswith("fs.write")
    lease_action.trigger()
    main.until(lambda: main.kernel.leases.list(a) == [])
    dialog = view.ask_budget(a)
    assert dialog.windowModality() == Qt.WindowModality.WindowModal
    dialog.setIntValue(500_000)
    dialog.accept()
    assert main.kernel.agents.get(a).budget == 500_000
    main.until(lambda: _cell(main, 0, COL_TOKENS).endswith("/ 500k"))  # the row shows it


def test_double_click_opens_and_raises_one_window(main, qtbot):
    a = main.spawn("scribe")
    view = main.window.process_view
    rect = view.visualRect(main.window.processes.index(0, COL_NAME))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert a in main.window.windows
    first = main.window.windows[a]
    assert main.window.window_for(a) is first
    assert first.isVisible()


def _keyboard_menu(view):
    """The Menu key, as Qt sends it: a keyboard context menu event at the current item's cursor rectangle,
    which Qt gives in the view's coordinates (not the viewport's)."""
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QApplication

    rect = view.inputMethodQuery(Qt.InputMethodQuery.ImCursorRectangle)
    event = QContextMenuEvent(QContextMenuEvent.Reason.Keyboard, rect.center(), view.mapToGlobal(rect.center()),
                              Qt.KeyboardModifier.NoModifier)
    view.last_menu = None
    QApplication.sendEvent(view, event)
    return view.last_menu


def _kill_action(menu):
    return next(act for act in menu.actions() if act.text().startswith("Kill"))


@pytest.mark.in_process
def test_the_menu_key_acts_on_the_selected_row_and_kill_names_the_agent(main, qtbot):
    a = main.spawn("scribe")
    main.write(a, "notes.md", "x\n")
    b = main.spawn("tester")
    main.settle()
    view = main.window.process_view
    view.setFocus()
    view.setCurrentIndex(main.window.processes.index(0, COL_NAME))
    menu = _keyboard_menu(view)
    assert _kill_action(menu).text() == f"Kill {a} scribe\u2026"
    revoke = next(act.menu() for act in menu.actions() if act.menu() is not None)
    assert [x.text() for x in revoke.actions()] == ["fs.write  \u00b7  5 min left"]  # the selected agent's lease
    menu.close()
    view.setCurrentIndex(main.window.processes.index(1, COL_NAME))  # the last row: it has a menu too
    menu = _keyboard_menu(view)
    assert menu is not None and _kill_action(menu).text() == f"Kill {b} tester\u2026"
    kill = _kill_action(menu)
    menu.close()
    kill.trigger()  # asks first, naming it
    box = view.kill_prompt
    assert box is not None and f"tester ({b})" in box.text()
    next(x for x in box.buttons() if x.text() == "Stop tester").click()
    main.until(lambda: main.kernel.agents.get(b).state == "killed")
    assert main.kernel.agents.get(a).state == "idle"


@pytest.mark.in_process
def test_delete_asks_to_kill_the_selected_agent_and_enter_cancels(main, qtbot):
    a = main.spawn("scribe")
    view = main.window.process_view
    view.setFocus()
    view.setCurrentIndex(main.window.processes.index(0, COL_NAME))
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    box = view.kill_prompt
    assert box is not None and box.isVisible() and f"scribe ({a})" in box.text()
    from PySide6.QtWidgets import QMessageBox

    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert main.kernel.agents.get(a).state == "idle"
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    next(x for x in view.kill_prompt.buttons() if x.text() == "Stop scribe").click()
    main.until(lambda: main.kernel.agents.get(a).state == "killed")
