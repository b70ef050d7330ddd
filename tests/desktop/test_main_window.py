"""Main window: shortcuts, New Ask, closing with running agents, lazy providers, end to end."""

from __future__ import annotations

import pytest

import asyncio
import subprocess
import sys

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop.ask_window import AskWindow
from desktop.process_model import COL_KILL, COL_LEASES, COL_NAME
from kernel.providers.base import StreamEnd, TextChunk
from kernel.providers.lazy import LazyProviders, UnavailableProvider
from kernel.providers.scripted import Hold, ScriptedTurn, reply
from kernel.config.settings import Settings, SettingsStore


def test_shortcuts_focus_the_tables(main, qtbot):
    main.spawn("scribe")
    main.window.activateWindow()
    qtbot.keyClick(main.window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is main.window.ledger_view.table
    qtbot.keyClick(main.window, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is main.window.process_view
    shortcuts = {a.shortcut().toString() for a in (main.window.new_action,)}
    assert shortcuts == {"Ctrl+N"}


def test_new_ask_spawns_and_opens_its_window(main):
    window = main.window.new_ask()
    (info,) = main.kernel.agents.list()
    assert isinstance(window, AskWindow) and window.agent_id == info.id
    assert main.window.windows[info.id] is window and window.isVisible()
    main.until(lambda: main.window.processes.rowCount() == 1)



def _closed_while_working(main):
    """An agent held mid-reply, then the main window's close: (agent, its gate, closed-signal log, the prompt)."""
    a = main.spawn("scribe")
    gate, reached = asyncio.Event(), asyncio.Event()
    main.provider(a).script(ScriptedTurn((TextChunk("working"), Hold(gate, reached), StreamEnd("end_turn"))))
    main.kernel.agents.send(a, "go")
    main.until(reached.is_set)
    closed: list[bool] = []
    main.window.closed.connect(lambda: closed.append(True))
    main.window.close()
    return a, gate, closed, main.window.close_prompt


@pytest.mark.parametrize("answer", ["Keep them running", "Stop them and quit"])
def test_quitting_the_attached_desktop_asks_whether_working_agents_keep_running(main, answer):
    """Attached, the kernel process outlives the desktop: one question, keep them or stop them, and it is done."""
    a, gate, closed, box = _closed_while_working(main)
    assert box is not None and box.isVisible() and box.windowModality() == Qt.WindowModality.WindowModal
    assert "scribe" in box.text() and "keep running in the kernel" in box.text()
    assert box.defaultButton().text() == "Keep them running"
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert main.window.isVisible() and main.kernel.agents.get(a).state == "running"
    main.window.close()
    next(b for b in main.window.close_prompt.buttons() if b.text() == answer).click()
    main.until(lambda: bool(closed))
    assert not main.window.isVisible()
    state = main.kernel.agents.get(a).state  # asked of the kernel process, which the desktop has let go of
    assert state == ("running" if answer == "Keep them running" else "killed")
    gate.set()


@pytest.mark.in_process  # in process, quitting stops the kernel and so its agents (attached: the test above)
def test_close_with_running_agents_asks_then_shuts_down(main):
    a, gate, closed, box = _closed_while_working(main)
    assert box is not None and box.isVisible() and main.window.isVisible()
    assert box.windowModality() == Qt.WindowModality.WindowModal
    assert "scribe" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert main.window.isVisible() and main.kernel.agents.get(a).state == "running"
    main.window.close()
    quit_button = next(b for b in main.window.close_prompt.buttons() if b.text() == "Stop agents and quit")
    quit_button.click()
    main.until(lambda: bool(closed))
    assert main.kernel.agents.get(a).state == "killed"
    assert not main.window.isVisible()


def test_close_without_running_agents_just_closes(main):
    main.spawn("idle-one")
    closed = []
    main.window.closed.connect(lambda: closed.append(True))
    main.window.close()
    main.until(lambda: bool(closed))
    assert main.window.close_prompt is None


def test_missing_key_is_a_reason_not_a_crash(tmp_path):
    store = SettingsStore(tmp_path)
    providers = LazyProviders(store, lambda: Settings(workspace=str(tmp_path)))
    provider = providers("anthropic")
    assert isinstance(provider, UnavailableProvider)
    assert "ANTHROPIC_API_KEY" in provider.reason or "not installed" in provider.reason


def test_startup_imports_no_provider_sdk():  # nor QtSvg (~170 ms): the first SVG thumbnail imports it
    code = ("import sys, desktop.app, desktop.main_window, desktop.ledger_view, kernel.providers.lazy; "
            "print([m for m in ('anthropic', 'openai', 'google.genai', 'PySide6.QtSvg') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"}, cwd=".")
    assert out.stdout.strip() == "[]"


def test_end_to_end_ask_lease_kill_undo(main, qtbot):
    a = main.spawn("scribe")
    target = main.workspace / "notes" / "todo.md"
    target.parent.mkdir()
    target.write_text("- [ ] call the bank\n")
    ask = main.window.window_for(a)
    main.provider(a).script(
        reply("I'll tick it off.", tools=(("fs_write", {"path": "notes/todo.md", "content": "- [x] call the bank\n"}),)),
        reply("Done."))
    qtbot.keyClicks(ask.input, "tick the bank")
    qtbot.keyClick(ask.input, Qt.Key.Key_Return)
    main.until(lambda: main.desk.lease_dialogs.request_for(a) is not None)
    dialog = main.desk.lease_dialogs.bring_up(a)
    assert dialog.scope_field.text() == "fs.write"
    assert dialog.parent() is ask and dialog.windowModality() == Qt.WindowModality.WindowModal
    diff = dialog.diff_view.toPlainText() if hasattr(dialog.diff_view, "toPlainText") else str(dialog.request.preview.diff)
    assert "-- [ ] call the bank" in dialog.request.preview.diff and "+- [x] call the bank" in dialog.request.preview.diff
    assert diff
    five = next(b for b in dialog.grant_buttons.values() if b.text().startswith("5 minutes"))
    five.click()
    main.until(lambda: main.kernel.agents.get(a).state == "idle")
    assert target.read_text() == "- [x] call the bank\n"
    model = main.window.processes
    assert model.data(model.index(0, COL_NAME)) == "scribe"
    assert model.data(model.index(0, COL_LEASES)) == "fs.write · 5 min left"
    assert "fs.write · 5 min left" == model.data(model.index(0, COL_LEASES), Qt.ItemDataRole.ToolTipRole)
    view = main.window.process_view
    rect = view.visualRect(model.index(0, COL_KILL))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    main.until(lambda: main.kernel.agents.get(a).state == "killed")
    assert main.kernel.leases.list(a) == []
    main.settle()
    ledger = main.window.ledger_view
    tool_entry = next(e for e in ledger.model.pager.entries if e.kind == "tool")
    assert ledger.select_seq(tool_entry.seq - 1)
    ledger.undo_after.click()
    ledger.last_dialog.undo_button.click()
    assert target.read_text() == "- [ ] call the bank\n"
    assert "1 restored" in ledger.last_dialog.headline.text()


def test_a_refused_workspace_in_settings_is_said_not_raised(main, monkeypatch):
    """settings.json edited by hand to name the home folder: New Ask says why and opens Settings."""
    from dataclasses import replace
    from pathlib import Path

    kernel = main.kernel
    kernel.update_settings(replace(kernel.settings, workspace=str(Path.home())))
    assert main.window.new_ask() is None
    assert "No agent started" in main.window.statusBar().currentMessage()
    assert "home folder" in main.window.statusBar().currentMessage()
    dialog = main.desk.extras["settings_dialog"]  # Settings opened, to choose another workspace
    assert dialog.isVisible() and dialog.windowTitle().startswith("Settings")
    dialog.reject()
    assert kernel.agents.list() == []
