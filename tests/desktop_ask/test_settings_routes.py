"""Settings → Models: default fallbacks per provider, whether they may be at another vendor, and the utility
model — edited in the dialog, saved to settings.json, strict about what is typed (issue 25)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from .test_settings_dialog import make


def save(qtbot, dialog) -> None:
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)


def test_default_routes_and_the_utility_model_are_saved(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    dialog.provider_tabs["anthropic"].fallbacks.setText("anthropic:claude-haiku-4-5, openai:gpt-5")
    dialog.any_vendor.setChecked(True)
    dialog.utility_model.setText("anthropic:claude-haiku-4-5")
    with qtbot.waitSignal(dialog.saved, timeout=2000) as got:
        save(qtbot, dialog)
    new = got.args[0]
    assert new.fallbacks_for("anthropic") == ("anthropic:claude-haiku-4-5", "openai:gpt-5")
    assert new.fallbacks_for("gemini") == () and new.fallback_any_vendor
    assert new.utility_model == "anthropic:claude-haiku-4-5"
    assert store.load() == new


def test_a_malformed_fallback_is_said_and_nothing_is_saved(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    dialog.provider_tabs["openai"].fallbacks.setText("gpt-5-mini")  # no provider
    save(qtbot, dialog)
    assert "fallbacks" in dialog.error_label.text() and "provider:model" in dialog.error_label.text()
    assert not store.settings_path.exists()
