"""Settings → Web: the search back-end, its base URL and key (kept like provider keys), and the
private-address switch, driven by keyboard and mouse."""

from __future__ import annotations

import json
import stat

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from desktop.settings_dialog import SettingsDialog
from kernel.config.settings import Settings, SettingsStore


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


def test_fetch_caps_are_typed_checked_and_saved(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    web = dialog.web_tab
    assert (web.max_size.text(), web.timeout.text(), web.redirects.text()) == ("2", "20", "5")  # the defaults
    dialog.tabs.setCurrentWidget(web)
    web.backend.setCurrentIndex(web.backend.findData("brave"))
    dialog.show()
    dialog.activateWindow()
    web.key.setFocus()
    qtbot.waitUntil(web.key.hasFocus)
    for field, typed in ((web.max_size, "0.5"), (web.timeout, "45"), (web.redirects, "2")):
        qtbot.keyClick(dialog.focusWidget(), Qt.Key.Key_Tab)  # keyboard only: Tab from the key to each cap
        assert dialog.focusWidget() is field
        field.selectAll()
        qtbot.keyClicks(field, typed)
    qtbot.keyClick(web.redirects, Qt.Key.Key_Tab)
    assert dialog.focusWidget() is web.allow_private
    with qtbot.waitSignal(dialog.saved, timeout=2000) as got:
        qtbot.keyClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Save), Qt.Key.Key_Space)
    new = got.args[0]
    assert (new.web_fetch_max_bytes, new.web_fetch_timeout_s, new.web_fetch_max_redirects) == (512 * 1024, 45.0, 2)
    assert new.web_search_backend == "brave"
    assert store.load() == new  # in settings.json, read back by the kernel


def test_bad_caps_are_refused_in_words_and_nothing_is_saved(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    web = dialog.web_tab
    for size, timeout, redirects, words in (
            ("-1", "20", "5", "Largest page must be a number of MB between 0.001 and 1024 (found '-1')"),
            ("5000000", "20", "5", "Largest page must be"),
            ("lots", "20", "5", "(found 'lots')"),
            ("nan", "20", "5", "Largest page must be"),
            ("2", "0", "5", "Time cap must be a number of seconds between 1 and 600 (found '0')"),
            ("2", "1e9", "5", "Time cap must be"),
            ("2", "soon", "5", "Time cap must be"),
            ("2", "20", "6", "Redirects must be a whole number from 0 to 5 (found '6')"),
            ("2", "20", "2.5", "Redirects must be a whole number"),
            ("2", "20", "-1", "Redirects must be a whole number")):
        web.max_size.setText(size)
        web.timeout.setText(timeout)
        web.redirects.setText(redirects)
        assert dialog.save() is False, (size, timeout, redirects)
        assert words in dialog.error_label.text()
        assert dialog.tabs.currentWidget() is web  # the page with the problem is shown
    assert not store.settings_path.exists()


def test_a_size_left_as_shown_keeps_its_exact_bytes(qtbot, tmp_path, agentdesk_home):
    ws = tmp_path / "work"
    ws.mkdir()
    _, dialog = make(qtbot, tmp_path, agentdesk_home, settings=Settings(workspace=str(ws), web_fetch_max_bytes=1_000_000))
    assert dialog.web_tab.max_size.text() == "0.953674"
    with qtbot.waitSignal(dialog.saved, timeout=2000) as got:
        assert dialog.save()
    assert got.args[0].web_fetch_max_bytes == 1_000_000
