"""A per-agent route chosen in a new Ask window before its first message (issue 25), on the attached desktop.

Ctrl+N opens the Ask window of an agent on Settings → Models' route at once; "Route…" (Alt+R) opens the
route form. "Start with this route" has the kernel spawn an agent on the route chosen and its window takes
the blank one's place. Anthropic and OpenAI are two protocols of one loopback fake server; the primary
answers 529 with a Retry-After beyond the retry cap, so the route falls over at once (no retry waits).
The chosen fallback answers; a fallback at another vendor is refused without the opt-in, by the form and
by the kernel alike, and no request reaches the other vendor until the person opts in.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.ask_window import AskWindow
from desktop.route_choice import ANOTHER_VENDOR, RouteChoice
from kernel.api import ModelRequest
from tests.fakes import HttpError, Text, Turn

DOWN = Turn(fault=HttpError(529, retry_after=120.0, message="Overloaded", kind="overloaded_error"))


def _open_form(main, qtbot) -> AskWindow:
    before = set(main.window.windows)
    main.window.new_action.trigger()  # Ctrl+N: a window on the default route, its message box focused
    [win] = [w for aid, w in main.window.windows.items() if aid not in before]
    assert isinstance(win, AskWindow) and win.route_button.isVisible()
    qtbot.waitUntil(win.isActiveWindow, timeout=5000)
    qtbot.keyClick(win, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)  # Alt+R: the route form, keyboard only
    form = win.route_form
    assert form is not None and form.isVisible() and QApplication.focusWidget() is form.provider
    return win


def _protocols(main) -> list[str]:
    return [r.protocol for r in main.server.srv.requests]


def _replaced(main, old: AskWindow) -> AskWindow:
    """The window of the agent started on the route, in place of ``old``'s (the newest agent's)."""
    main.until(lambda: old.agent_id not in main.window.windows)
    newest = max(main.window.windows, key=lambda aid: int(aid.lstrip("a")))
    win = main.window.windows[newest]
    assert isinstance(win, AskWindow)
    return win


def _asked(main, qtbot, win: AskWindow, text: str) -> None:
    qtbot.keyClicks(win.input, text)
    qtbot.keyClick(win.input, Qt.Key.Key_Return)
    main.until(lambda: main.kernel.agents.get(win.agent_id).state == "idle" and not win.route_button.isVisible())


@pytest.mark.openai_too
def test_the_route_chosen_in_a_new_ask_answers_and_another_vendor_needs_the_opt_in(main, qtbot) -> None:
    srv = main.server.srv
    win = _open_form(main, qtbot)
    form = win.route_form
    assert [form.provider.itemText(i) for i in range(form.provider.count())] == ["anthropic", "openai",
                                                                                 "openai-chat"]  # configured
    assert (form.provider.currentText(), form.model.text()) == ("anthropic", "claude-sonnet-4-5")
    assert not form.any_vendor.isChecked() and form.vendor_note.text() == ANOTHER_VENDOR  # off, and said why

    # another vendor without the opt-in: the form refuses, and so does the kernel for a forged choice
    form.fallbacks.setText("openai:gpt-5")
    qtbot.keyClick(form.fallbacks, Qt.Key.Key_Return)
    assert form.problem.isVisible() and "another vendor" in form.problem.text()
    win.route_chosen.emit(win.agent_id, RouteChoice("anthropic", "claude-sonnet-4-5", ("openai:gpt-5",), False))
    main.until(lambda: "another vendor" in form.problem.text() and "--fallback-any-vendor" in form.problem.text())
    assert [a.id for a in main.kernel.agents.list()] == [win.agent_id]  # nothing started

    # a fallback of the same vendor: the agent starts on that route, the blank one goes to History
    form.fallbacks.setText("anthropic:claude-haiku-4-5")
    qtbot.keyClicks(win.input, "tidy up")  # typed before the route was chosen: kept
    qtbot.mouseClick(form.start_button, Qt.MouseButton.LeftButton)
    same = _replaced(main, win)
    assert same.input.toPlainText() == "tidy up" and same.route_button.isVisible()
    assert [h.id for h in main.kernel.agents.history()] == [win.agent_id]  # archived, never deleted
    same.input.clear()
    srv.script(DOWN, Turn(parts=(Text("from the smaller model"),)))
    _asked(main, qtbot, same, "one")
    assert _protocols(main) == ["anthropic", "anthropic"]  # 0 requests to another vendor
    assert [r.body["model"] for r in srv.requests] == ["claude-sonnet-4-5", "claude-haiku-4-5"]

    # with the opt-in, the other vendor's model answers when the primary is down
    win = _open_form(main, qtbot)
    form = win.route_form
    form.model.setText("claude-opus-4-1")
    form.fallbacks.setText("openai:gpt-5")
    qtbot.keyClick(form.any_vendor, Qt.Key.Key_Space)
    assert form.any_vendor.isChecked()
    qtbot.keyClick(form.fallbacks, Qt.Key.Key_Return)
    routed = _replaced(main, win)
    srv.script(DOWN, Turn(parts=(Text("from the other vendor"),)))
    _asked(main, qtbot, routed, "two")
    assert _protocols(main)[2:] == ["anthropic", "openai_responses"]
    assert [r.body["model"] for r in srv.requests[2:]] == ["claude-opus-4-1", "gpt-5"]
    entries = [e for e in main.record.page(kind="request") if isinstance(e, ModelRequest)]
    last = entries[0]  # newest first
    assert (last.actor, last.provider, last.requested_model, last.served_provider) == (
        routed.agent_id, "openai", "claude-opus-4-1", "openai")
    assert last.route_reason.startswith("fallback after anthropic overloaded")
    main.until(lambda: any("Answered by openai:gpt-5" in n for n in _notices(routed)))


def _notices(win: AskWindow) -> list[str]:
    from PySide6.QtWidgets import QLabel

    return [label.text() for label in win.findChildren(QLabel, "notice")]
