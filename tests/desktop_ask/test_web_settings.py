"""Settings → Web: the search back-end, its base URL and key (kept like provider keys), and the
private-address switch, driven by keyboard and mouse."""

from __future__ import annotations

import json
import stat

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from desktop.settings_dialog import SettingsDialog
from kernel.settings import Settings, SettingsStore


def make(qtbot, tmp_path, home, env=None, settings=None):
    ws = tmp_path / "work"
    ws.mkdir(exist_ok=True)
    store = SettingsStore(home)
    dialog = SettingsDialog(store, settings or Settings(user_name="Ada", workspace=str(ws)), None, env=env or {})
    qtbot.addWidget(dialog)
    return store, dialog


def test_web_tab_saves_backend_url_switch_and_key_apart(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    web = dialog.web_tab
    dialog.tabs.setCurrentWidget(web)
    assert not web.key.isEnabled()  # no back-end yet
    web.backend.setCurrentIndex(web.backend.findData("tavily"))
    assert web.key.isEnabled() and "api.tavily.com" in web.base_url.placeholderText()
    assert "TAVILY_API_KEY" in web.source.text()
    qtbot.keyClicks(web.key, "tvly-secret-key-123")
    assert web.key.echoMode() == web.key.EchoMode.Password
    qtbot.mouseClick(web.allow_private, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(dialog.saved, timeout=2000) as got:
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)
    new = got.args[0]
    assert (new.web_search_backend, new.web_search_base_url, new.web_allow_private) == ("tavily", "", True)
    assert json.loads(store.keys_path.read_text()) == {"tavily": "tvly-secret-key-123"}
    assert stat.S_IMODE(store.keys_path.stat().st_mode) == 0o600
    assert "tvly-secret-key-123" not in store.settings_path.read_text()
    assert store.load() == new and store.web_key("tavily", env={}) == "tvly-secret-key-123"


def test_a_saved_key_is_never_shown_and_can_be_forgotten(qtbot, tmp_path, agentdesk_home):
    SettingsStore(agentdesk_home).save_key("brave", "BSA-saved-key-0000")
    ws = tmp_path / "work"
    ws.mkdir()
    store, dialog = make(qtbot, tmp_path, agentdesk_home,
                         settings=Settings(workspace=str(ws), web_search_backend="brave"))
    web = dialog.web_tab
    assert web.key.text() == "" and "saved in keys.json" in web.source.text()
    assert web.forget.isVisibleTo(web)
    web.forget.setChecked(True)
    assert dialog.save()
    assert json.loads(store.keys_path.read_text()) == {}


def test_the_environment_key_is_named_not_shown(qtbot, tmp_path, agentdesk_home):
    _, dialog = make(qtbot, tmp_path, agentdesk_home, env={"BRAVE_API_KEY": "from-env-123456"})
    web = dialog.web_tab
    web.backend.setCurrentIndex(web.backend.findData("brave"))
    assert web.source.text() == "Key in use: from BRAVE_API_KEY (environment)."
    assert "from-env-123456" not in web.source.text()


def test_a_bad_base_url_is_refused_in_words(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    web = dialog.web_tab
    web.backend.setCurrentIndex(web.backend.findData("searxng"))
    web.base_url.setText("localhost:8888")
    assert dialog.save() is False
    assert "web_search_base_url" in dialog.error_label.text() and "http://" in dialog.error_label.text()
    assert not store.settings_path.exists()
