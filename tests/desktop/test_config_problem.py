"""A bad settings.json or keys.json at start: the desktop opens with defaults in place of the bad values,
shows the CLI's sentence in a non-modal dialog, and its two buttons fix the file or open Settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.app import build_desktop, show_config_problems
from kernel.core.clock import ManualClock
from kernel.config.settings import Settings
from tests.service.attached import quit_desktop


@pytest.fixture
def broken_home(tmp_path: Path, qloop, qtbot):
    home = tmp_path / "home"
    home.mkdir()
    ws = tmp_path / "ws"
    ws.mkdir()
    (home / "settings.json").write_text(json.dumps({
        "workspace": str(ws), "default_lease_s": "x", "default_budget": 5000, "models": {"gemini": 5},
    }))
    desk = build_desktop(home, providers=lambda name: None, clock=ManualClock())  # loads settings.json itself
    qtbot.addWidget(desk.window)
    desk.window.show()
    yield desk
    quit_desktop(desk, qtbot)  # the kernel stops, its windows close
    desk.ledger.close()


@pytest.mark.in_process  # the in-process desktop's own reading of settings.json (build_desktop)
def test_restore_default_rewrites_each_field_in_turn_and_the_desktop_uses_it(broken_home, qtbot):
    desk = broken_home
    # Started: the good values are in force, defaults stand in for the bad ones.
    assert desk.settings.default_budget == 5000 and desk.settings.default_lease_s == Settings().default_lease_s
    dialog = show_config_problems(desk)
    assert dialog.isVisible() and dialog.windowModality() == Qt.WindowModality.NonModal
    assert dialog.message.text() == ('settings.json: default_lease_s must be a number of seconds between 1 and '
                                     '28800 (found "x")')  # the same sentence as the CLI's
    assert dialog.restore_button.text() == "Restore default for default_lease_s"
    assert dialog.open_button.text() == "Open Settings"

    qtbot.mouseClick(dialog.restore_button, Qt.MouseButton.LeftButton)
    data = json.loads(desk.store.settings_path.read_text())
    assert "default_lease_s" not in data and data["default_budget"] == 5000 and data["models"] == {"gemini": 5}
    assert dialog.isVisible() and dialog.restore_button.text() == "Restore default for models.gemini"

    qtbot.mouseClick(dialog.restore_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    assert desk.store.problems() == ()
    assert json.loads(desk.store.settings_path.read_text())["models"] == {}
    assert desk.kernel.settings == desk.store.load()


@pytest.mark.in_process  # the in-process desktop's own reading of settings.json (build_desktop)
def test_open_settings_opens_the_dialog_and_saving_fixes_the_file(broken_home, qtbot):
    desk = broken_home
    desk.store.keys_path.write_text('{"anthropic": 5}')
    dialog = show_config_problems(desk)
    qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    settings_dialog = desk.extras["settings_dialog"]
    assert settings_dialog.isVisible() and not dialog.isVisible()
    with qtbot.waitSignal(settings_dialog.saved, timeout=3000):
        settings_dialog.buttons.button(settings_dialog.buttons.StandardButton.Save).click()
    assert desk.store.check().errors == ()
    assert desk.kernel.settings.default_budget == 5000
    # keys.json still needs attention: the problem dialog comes back for it.
    again = desk.extras["config_problem"]
    assert again is not dialog and again.isVisible()
    assert again.message.text() == "keys.json: anthropic must be an API key string (found a number)"
    qtbot.mouseClick(again.restore_button, Qt.MouseButton.LeftButton)
    assert not again.isVisible() and desk.store.keys() == {}


@pytest.mark.in_process  # the in-process desktop's own reading of settings.json (build_desktop)
def test_a_good_home_shows_nothing(tmp_path, qloop, qtbot):
    desk = build_desktop(tmp_path / "home", providers=lambda name: None, clock=ManualClock(),
                         settings=Settings(workspace=str(tmp_path)))
    qtbot.addWidget(desk.window)
    try:
        assert show_config_problems(desk) is None
    finally:
        quit_desktop(desk, qtbot)  # the kernel stops, its windows close
        desk.ledger.close()
