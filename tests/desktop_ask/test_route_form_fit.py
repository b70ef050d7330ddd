"""The route form of a new Ask window (issue 25): its rules in plain Python, and the form from the keyboard,
inside a 1024×700 screen. The attached end-to-end path is tests/desktop/test_route_form.py."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.route_choice import RouteChoice, check_choice, default_words, read_fallbacks
from kernel.providers.scripted import reply

from .test_ask_window import send

USABLE = ("anthropic", "openai")


def test_the_rules_of_a_chosen_route() -> None:
    assert read_fallbacks("  ") is None and read_fallbacks("None") == () and \
        read_fallbacks("a:x, b:y c:z") == ("a:x", "b:y", "c:z")
    assert check_choice("anthropic", "claude-sonnet-4-5", "", False, USABLE) == \
        RouteChoice("anthropic", "claude-sonnet-4-5", None, False)  # empty: Settings' default route
    assert check_choice("anthropic", "claude-sonnet-4-5", "anthropic:claude-haiku-4-5", False, USABLE) == \
        RouteChoice("anthropic", "claude-sonnet-4-5", ("anthropic:claude-haiku-4-5",), False)
    assert "another vendor" in str(check_choice("anthropic", "m", "openai:gpt-5", False, USABLE))
    assert check_choice("anthropic", "m", "openai:gpt-5", True, USABLE) == \
        RouteChoice("anthropic", "m", ("openai:gpt-5",), True)
    assert "not a configured provider" in str(check_choice("anthropic", "m", "gemini:gemini-2.5-pro", True, USABLE))
    assert "not configured" in str(check_choice("gemini", "m", "", False, USABLE))
    assert "provider:model" in str(check_choice("anthropic", "m", "gpt-5", False, USABLE))
    assert "no spaces" in str(check_choice("anthropic", "two words", "", False, USABLE))
    assert "At most 8" in str(check_choice("anthropic", "m", " ".join(["anthropic:x"] * 9), False, USABLE))
    # hostile text is quoted short, never whole
    assert len(str(check_choice("anthropic", "m", "x" * 5000, False, USABLE))) < 200
    assert default_words("anthropic", ("openai:gpt-5",), False).startswith("no fallback")
    assert "openai:gpt-5" in default_words("anthropic", ("openai:gpt-5",), True)


@pytest.mark.in_process
def test_the_route_form_from_the_keyboard_inside_1024x700(desk, qtbot, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")  # one configured provider of the catalog
    win = desk.open()
    win.show()
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=5000)
    assert win.route_button.isVisible() and win.route_form is None  # nothing built until asked
    qtbot.keyClick(win.input, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)
    form = win.route_form
    assert form is not None and form.isVisible()
    walk = [QApplication.focusWidget()]
    for _ in range(5):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        walk.append(QApplication.focusWidget())
    assert walk == [form.provider, form.model, form.fallbacks, form.any_vendor, form.start_button,
                    form.cancel_button]
    assert [form.provider.itemText(i) for i in range(form.provider.count())] == ["anthropic"]
    assert form.fallbacks.placeholderText().startswith("no fallback")
    # inside a 1024×700 screen (less its panels), the form open
    hint = win.minimumSizeHint()
    assert hint.width() <= 1008 and hint.height() <= 652 and form.sizeHint().width() <= win.width()
    qtbot.keyClick(form.cancel_button, Qt.Key.Key_Space)  # Cancel: back to the message box
    assert not form.isVisible() and QApplication.focusWidget() is win.input
    qtbot.keyClick(win.input, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)
    qtbot.keyClick(form.model, Qt.Key.Key_Escape)  # Esc in the form closes the form, not the window
    assert not form.isVisible() and win.isVisible() and QApplication.focusWidget() is win.input
    desk.provider_of(win).script(reply("hello"))
    send(qtbot, win, "hi")
    desk.until_state(win, "idle")
    assert not win.route_button.isVisible()  # the first message went: the route is the agent's now
    assert win.choose_route() is None and not form.isVisible()


@pytest.mark.in_process
def test_without_a_configured_provider_the_form_says_so(desk, monkeypatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    win = desk.open()
    assert win.choose_route() is None and "No provider is configured" in win.status_label.text()
