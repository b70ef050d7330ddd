"""Settings → Prices: the shipped defaults shown, edited per provider, strict about what is typed."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from desktop.settings_form import parse_prices

from .test_settings_dialog import make


def test_prices_are_edited_in_the_provider_tab_and_saved(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    tab = dialog.provider_tabs["openai-chat"]
    assert tab.prices.toPlainText() == "gpt-5  1.25  10  0.125  -"  # the shipped default (no cache-write price)
    assert dialog.provider_tabs["anthropic"].prices.toPlainText() == "claude-sonnet-4-5  3  15  0.3  3.75"
    tab.prices.setPlainText("gpt-5  1.25  10  0.125  -\nllama3.1:8b  0  0  0\nqwen3  0.1  0.4  0.01  0.2\n")
    with qtbot.waitSignal(dialog.saved, timeout=2000) as got:
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)
    new = got.args[0]
    assert new.prices["openai-chat"]["llama3.1:8b"] == {"input": 0.0, "output": 0.0, "cached_input": 0.0}
    assert new.prices["openai-chat"]["qwen3"]["cache_write"] == 0.2 and "cache_write" not in new.prices["openai-chat"]["gpt-5"]
    assert new.prices["anthropic"]["claude-sonnet-4-5"]["input"] == 3.0  # other providers kept
    assert store.load() == new


def test_a_wrong_price_line_is_said_and_nothing_is_saved(qtbot, tmp_path, agentdesk_home):
    store, dialog = make(qtbot, tmp_path, agentdesk_home)
    dialog.provider_tabs["gemini"].prices.setPlainText("gemini-2.5-flash  cheap  2.5  0.03")
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)
    assert "The gemini prices: line 1" in dialog.error_label.text()
    assert not store.settings_path.exists()


def test_parse_prices_is_strict():
    assert parse_prices("m 1 2 0.5\n\n  n 0 0 0  ") == ({"m": {"input": 1.0, "output": 2.0, "cached_input": 0.5},
                                                        "n": {"input": 0.0, "output": 0.0, "cached_input": 0.0}}, None)
    assert parse_prices("m 1 2 0.5 1.25\nn 1 2 0.5 -")[0] == {
        "m": {"input": 1.0, "output": 2.0, "cached_input": 0.5, "cache_write": 1.25},
        "n": {"input": 1.0, "output": 2.0, "cached_input": 0.5}}
    for bad in ("m 1 2", "m 1 2 3 4 5", "m 1 2 3 x", "m 1 2 3 -1", "m -1 2 3", "m nan 2 3", "m inf 2 3", "m 1 2 1e9"):
        assert parse_prices(bad)[1] is not None, bad


def test_a_long_price_error_is_shown_whole_not_drawn_over(qtbot, tmp_path, agentdesk_home):
    """The dialog's body keeps what room the screen gives; the error under it used to get what was left (two
    lines for a three-line sentence) and was drawn over, its first line clipped."""
    _store, dialog = make(qtbot, tmp_path, agentdesk_home)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.provider_tabs["gemini"].prices.setPlainText("gemini-2.5-flash  cheap  2.5  0.03")
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)
    label = dialog.error_label
    qtbot.waitUntil(lambda: label.isVisible())
    qtbot.waitUntil(lambda: dialog.body.geometry().bottom() < label.geometry().top())  # nothing drawn over it
    assert label.height() >= label.heightForWidth(label.width())  # every line of it
    assert label.heightForWidth(label.width()) > label.fontMetrics().lineSpacing() * 2  # a long one, wrapped
