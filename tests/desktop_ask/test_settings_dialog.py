"""Settings: validation in words, keys in keys.json with mode 0600 and never in settings.json."""

from __future__ import annotations

import json
import stat

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QLabel, QLineEdit

from desktop.settings_dialog import SettingsDialog
from desktop.settings_form import FormValues, ProviderValues, apply_form, check_form, values_from
from kernel.config.settings import Settings, SettingsStore


def make(qtbot, tmp_path, home):
    ws = tmp_path / "work"
    ws.mkdir()
    store = SettingsStore(home)
    dialog = SettingsDialog(store, Settings(user_name="Ada", workspace=str(ws)), None)
    qtbot.addWidget(dialog)
    return store, dialog


def test_save_keeps_keys_apart_with_mode_0600(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    dialog.user_name.setText("Grace")
    dialog.default_lease.setValue(30)
    dialog.default_budget.setValue(300_000)
    dialog.provider.setCurrentText("openai-chat")
    assert dialog.tabs.currentWidget() is dialog.provider_tabs["openai-chat"]
    dialog.provider_tabs["openai-chat"].base_url.setText("http://127.0.0.1:11434/v1")
    dialog.provider_tabs["openai-chat"].model.setText("llama3")
    dialog.provider_tabs["anthropic"].key.setText("sk-ant-secret-123")
    assert dialog.provider_tabs["anthropic"].key.echoMode() == dialog.provider_tabs["anthropic"].key.EchoMode.Password

    with qtbot.waitSignal(dialog.saved, timeout=2000) as got:
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)
    new = got.args[0]
    assert isinstance(new, Settings)
    assert (new.user_name, new.default_lease_s, new.default_budget, new.provider) == ("Grace", 1800.0, 300_000,
                                                                                      "openai-chat")
    assert new.base_urls == {"openai-chat": "http://127.0.0.1:11434/v1"} and new.models["openai-chat"] == "llama3"
    assert stat.S_IMODE(store.keys_path.stat().st_mode) == 0o600
    assert json.loads(store.keys_path.read_text()) == {"anthropic": "sk-ant-secret-123"}
    assert "sk-ant-secret-123" not in store.settings_path.read_text()
    assert store.load() == new
    assert store.api_key("anthropic") == "sk-ant-secret-123"


def test_invalid_input_is_explained_and_nothing_is_saved(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    dialog.workspace.setText(str(tmp_path / "nowhere"))
    dialog.user_name.setText("  ")
    dialog.provider_tabs["openai"].base_url.setText("localhost:8080")
    assert dialog.save() is False
    text = dialog.error_label.text()
    assert "does not exist" in text and "Enter your name" in text and "http://" in text
    assert dialog.error_label.isVisibleTo(dialog)
    assert not store.settings_path.exists() and not store.keys_path.exists()


def test_a_saved_key_is_never_shown_and_can_be_forgotten(qtbot, tmp_path, agentdesk_home):
    store = SettingsStore(agentdesk_home)
    store.save_key("gemini", "g-key")
    _, dialog = make(qtbot, tmp_path, agentdesk_home)
    tab = dialog.provider_tabs["gemini"]
    assert tab.key.text() == "" and "saved" in tab.key.placeholderText() and not tab.forget.isHidden()
    tab.forget.setChecked(True)
    assert dialog.save()
    assert store.keys() == {}


def test_dialog_is_never_application_modal(qtbot, tmp_path, agentdesk_home):
    from PySide6.QtWidgets import QWidget

    parent = QWidget()
    qtbot.addWidget(parent)
    dialog = SettingsDialog(SettingsStore(agentdesk_home), Settings(workspace=str(tmp_path)), parent)
    assert dialog.windowModality() == Qt.WindowModality.WindowModal
    assert "follows the system" in " ".join(w.text() for w in dialog.findChildren(type(dialog.error_label)))


def test_form_rules_without_qt(tmp_path):
    values = values_from(Settings(workspace=str(tmp_path)))
    assert check_form(values) == []
    bad = FormValues("Ada", str(tmp_path), 0, 5, 10, "nope", {"anthropic": ProviderValues(key="a b", model="")})
    fields = [f for f, _ in check_form(bad)]
    assert fields == ["default_lease", "request_expiry", "default_budget", "provider", "anthropic.key"]
    ok = FormValues("Ada", str(tmp_path), 15, 120, 5000, "gemini", {"gemini": ProviderValues(model="g2")})
    new = apply_form(ok, Settings())
    assert new.models["gemini"] == "g2" and new.default_budget == 5000


def test_the_key_field_says_where_the_key_in_use_comes_from_never_the_key(qtbot, tmp_path, agentdesk_home):
    store = SettingsStore(agentdesk_home)
    store.save_key("openai", "sk-saved-secret")
    env = {"ANTHROPIC_API_KEY": "sk-env-secret"}
    dialog = SettingsDialog(store, Settings(workspace=str(tmp_path)), None, env=env)
    qtbot.addWidget(dialog)
    source = {name: tab.source.text() for name, tab in dialog.provider_tabs.items()}
    assert source["anthropic"] == "Key in use: from ANTHROPIC_API_KEY (environment)."
    assert source["openai"] == "Key in use: saved in keys.json."
    assert source["openai-chat"] == "Key in use: saved in keys.json (the openai key)."
    assert source["gemini"] == ("Key in use: not set \u2014 type a key here and Save, or set GEMINI_API_KEY "
                                "in the environment.")
    assert "not set" not in dialog.provider_tabs["anthropic"].key.placeholderText()
    texts = " ".join(w.text() for w in dialog.findChildren(QLabel)) + " ".join(
        w.text() + w.placeholderText() for w in dialog.findChildren(QLineEdit))
    assert "secret" not in texts


def test_an_environment_key_says_a_saved_one_is_not_used(qtbot, tmp_path, agentdesk_home):
    store = SettingsStore(agentdesk_home)
    store.save_key("gemini", "g-saved")
    dialog = SettingsDialog(store, Settings(workspace=str(tmp_path)), None, env={"GOOGLE_API_KEY": "g-env"})
    qtbot.addWidget(dialog)
    assert dialog.provider_tabs["gemini"].source.text() == (
        "Key in use: from GOOGLE_API_KEY (environment). The key saved in keys.json is not used while it is set.")


def test_a_broken_keys_file_is_explained_in_the_dialog_not_a_crash(qtbot, tmp_path, agentdesk_home):
    store = SettingsStore(agentdesk_home)
    store.keys_path.write_text("[]")
    dialog = SettingsDialog(store, Settings(workspace=str(tmp_path)), None, env={})
    qtbot.addWidget(dialog)
    assert dialog.provider_tabs["anthropic"].source.text() == (
        "Key in use: none \u2014 keys.json must be a JSON object mapping provider names to API keys (found a "
        "list). Type a key here and Save, or set ANTHROPIC_API_KEY.")


def test_an_ask_window_key_check_over_a_broken_keys_file_is_a_sentence(agentdesk_home):
    from kernel.providers.lazy import missing_key_message

    store = SettingsStore(agentdesk_home)
    store.keys_path.write_text('{"anthropic": ["sk-ant-hidden"]}')
    assert missing_key_message("anthropic", store) == (
        "keys.json: anthropic must be an API key string (found a list). Fix it in Settings, or set "
        "ANTHROPIC_API_KEY in the environment.")


def test_folders_commands_may_read_round_trip_through_the_dialog(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    dialog.read_only.setPlainText("  ~/datasets \n\n/srv/shared\n")
    with qtbot.waitSignal(dialog.saved, timeout=2000) as got:
        assert dialog.save()
    assert got.args[0].sandbox_read_only == ("~/datasets", "/srv/shared")
    assert store.load().sandbox_read_only == ("~/datasets", "/srv/shared")
    again = SettingsDialog(store, store.load(), None)
    qtbot.addWidget(again)
    assert again.read_only.toPlainText() == "~/datasets\n/srv/shared"


def test_a_relative_folder_commands_may_read_is_refused_in_words(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    dialog.read_only.setPlainText("datasets")
    assert dialog.save() is False
    assert "absolute paths or start with ~" in dialog.error_label.text()
    assert not store.settings_path.exists()


def test_automation_grace_window_and_pause_after_are_edited_and_saved(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    page = dialog.open_automations()
    assert page.isVisible() and page.windowModality() == Qt.WindowModality.WindowModal
    assert (page.grace.text(), page.pause_after.text()) == ("12", "3")  # the defaults
    page.grace.setText("1.5")
    page.pause_after.setText("5")
    with qtbot.waitSignal(dialog.saved, timeout=2000) as got:
        assert page.save() is True
    assert (got.args[0].automation_grace_s, got.args[0].automation_pause_after) == (5400.0, 5)
    assert (store.load().automation_grace_s, store.load().automation_pause_after) == (5400.0, 5)
    assert dialog.save() is True  # the Settings dialog's own Save keeps them
    assert (store.load().automation_grace_s, store.load().automation_pause_after) == (5400.0, 5)
    again = SettingsDialog(store, store.load(), None)
    qtbot.addWidget(again)
    page = again.open_automations()
    assert (page.grace.text(), page.pause_after.text()) == ("1.5", "5")
    page.reject()


def test_bad_automation_numbers_are_explained_and_nothing_is_saved(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    page = dialog.open_automations()
    for grace, pause in (("soon", "0"), ("-1", "2.5"), ("169", "101"), ("nan", "")):
        page.grace.setText(grace)
        page.pause_after.setText(pause)
        assert page.save() is False
        text = page.error_label.text()
        assert page.error_label.isVisibleTo(page)
        assert f"from 0 to 168 (a week), not {grace!r}" in text, text
        assert f"1 to 100 failed runs in a row: enter a whole number in that range, not {pause!r}" in text, text
    assert not store.settings_path.exists()
    page.grace.setText("0")  # never catch up is allowed
    page.pause_after.setText("1")
    assert page.save() is True
    assert (store.load().automation_grace_s, store.load().automation_pause_after) == (0.0, 1)


def test_compaction_threshold_and_context_window_are_edited_checked_and_saved(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    assert dialog.compact_at.value() == 75 and dialog.context_window.text() == ""  # the defaults, as the kernel's
    for threshold, window, words in ((5, "", "10% to 95%"), (96, "", "10% to 95%"),
                                     (75, "512", "from 1,024"), (75, "lots", "whole number of tokens"),
                                     (75, "-4096", "whole number of tokens"), (75, "200000000", "100,000,000")):
        dialog.compact_at.setValue(threshold)
        dialog.context_window.setText(window)
        assert dialog.save() is False, (threshold, window)
        assert words in dialog.error_label.text() and dialog.error_label.isVisibleTo(dialog)
        assert not store.settings_path.exists()
    dialog.compact_at.setValue(60)
    dialog.context_window.setText("65,536")
    with qtbot.waitSignal(dialog.saved, timeout=2000) as got:
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)
    new = got.args[0]
    assert (new.compact_at, new.context_window) == (0.6, 65_536)
    assert store.load() == new
    reopened = SettingsDialog(store, new, None)
    qtbot.addWidget(reopened)
    assert reopened.compact_at.value() == 60 and reopened.context_window.text() == "65,536"
    reopened.context_window.setText("")  # back to each model's known window
    reopened.compact_at.setValue(10)  # the lowest the kernel's settings accept too
    assert reopened.save() and (store.load().context_window, store.load().compact_at) == (0, 0.1)
