"""Settings → Save reaches the kernel, the provider factory and every open Ask window."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.app import build_desktop
from kernel.core.clock import ManualClock
from kernel.providers.lazy import LazyProviders
from kernel.config.settings import BASE_URL_VARIABLES, KEY_VARIABLES, Settings
from tests.service.attached import quit_desktop


def test_settings_action_opens_a_window_modal_dialog_whose_save_reaches_the_kernel(main, qtbot):
    main.window.settings_action.trigger()
    dialog = main.desk.extras["settings_dialog"]
    assert dialog.isVisible() and dialog.parent() is main.window
    assert dialog.windowModality() == Qt.WindowModality.WindowModal
    main.window.settings_action.trigger()  # a second click raises the same dialog
    assert main.desk.extras["settings_dialog"] is dialog
    dialog.default_budget.setValue(50_000)
    dialog.default_lease.setValue(5)
    with qtbot.waitSignal(dialog.saved, timeout=3000):
        dialog.buttons.button(dialog.buttons.StandardButton.Save).click()
    assert main.kernel.settings.default_budget == 50_000
    assert main.desk.store.load().default_budget == 50_000
    later = main.spawn("later")
    assert main.kernel.agents.get(later).budget == 50_000


@pytest.fixture
def keyless(tmp_path: Path, qloop, qtbot, monkeypatch):
    """A desktop with the real lazy provider factory and no key anywhere."""
    for name in (*KEY_VARIABLES.values(), *BASE_URL_VARIABLES.values(), "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    ws = tmp_path / "ws"
    ws.mkdir()
    desk = build_desktop(tmp_path / "home", clock=ManualClock(),
                         settings=Settings(workspace=str(ws), provider="anthropic"))
    qtbot.addWidget(desk.window)
    desk.window.show()
    yield desk
    quit_desktop(desk, qtbot)  # the kernel stops, its windows close
    desk.ledger.close()


@pytest.mark.in_process  # providers built in the desktop's process
def test_saving_a_key_rebuilds_providers_and_clears_the_missing_key_notice(keyless, qtbot):
    desk = keyless
    assert isinstance(desk.providers, LazyProviders)
    ask = desk.window.new_ask()
    assert ask.key_notice.isVisibleTo(ask) and not ask.send_button.isEnabled()
    desk.providers._built["anthropic"] = object()  # as if built before the key changed
    ask.settings_button.click()
    dialog = desk.extras["settings_dialog"]
    assert dialog.windowModality() == Qt.WindowModality.WindowModal  # on the main window: the Ask window stays usable
    dialog.provider_tabs["anthropic"].key.setText("sk-test-key")
    dialog.provider_tabs["anthropic"].model.setText("claude-test")
    with qtbot.waitSignal(dialog.saved, timeout=3000):
        dialog.buttons.button(dialog.buttons.StandardButton.Save).click()
    assert desk.providers.built == {}  # rebuilt on next use, with the new key
    assert desk.store.api_key("anthropic") == "sk-test-key"
    assert desk.kernel.settings.model_for("anthropic") == "claude-test"
    assert not ask.key_notice.isVisibleTo(ask) and ask.send_button.isEnabled()
    assert desk.kernel.agents.get(desk.window.new_ask().agent_id).model == "claude-test"
