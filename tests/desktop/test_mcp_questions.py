"""An MCP server's question for the user in the desktop (issue 29): it announces itself and takes no
keyboard, comes up on the answer shortcut with the server's defaults filled in, sends what the user
accepted (recorded), and Esc declines. The question is asked through the kernel's own answerer (the
path a server's elicitation takes: tests/extensions/test_mcp_whole_client.py drives it from a real server)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QCheckBox, QLineEdit

from desktop.question_dialog import QuestionDialog
from kernel.extensions.mcp_elicit import ElicitAnswer, ElicitQuestion, question_of
from ledger import USER, McpElicit

SCHEMA = {"type": "object", "properties": {"name": {"type": "string", "default": "Ada"},
                                           "count": {"type": "integer", "default": 2},
                                           "gift": {"type": "boolean", "default": False}},
          "required": ["name"]}


@pytest.mark.in_process  # the kernel's answerer is reached in this process (a server would reach it the same way)
def test_a_question_waits_unannounced_comes_up_on_the_shortcut_and_sends_the_accepted_form(main, qtbot):
    agent_id = main.spawn("scribe")
    questions = main.kernel.extensions._questions
    dialogs = main.desk.extras["questions"]
    typing_in = main.window
    typing_in.activateWindow()
    before = QApplication.activeWindow()
    asked = asyncio.ensure_future(questions(replace(question_of("shop", "What should I order?", SCHEMA),
                                                    agent_id=agent_id)))
    qtbot.waitUntil(lambda: len(dialogs.waiting) == 1)
    assert dialogs.open == {} and QApplication.activeWindow() is before  # nothing took the keyboard
    assert "The MCP server shop asks you something for scribe" in main.window.statusBar().currentMessage()

    main.window.answer_lease()  # Ctrl+Shift+A: no lease request waits, so the question comes up
    [dialog] = dialogs.open.values()
    assert isinstance(dialog, QuestionDialog) and dialog.windowTitle() == "The MCP server shop asks you"
    name, count, gift = (dialog.inputs[k] for k in ("name", "count", "gift"))
    assert isinstance(name, QLineEdit) and name.text() == "Ada" and isinstance(count, QLineEdit)
    assert isinstance(gift, QCheckBox) and not gift.isChecked()
    count.setText("5")
    gift.setChecked(True)
    qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(asked.done)
    assert asked.result() == ElicitAnswer("accept", {"name": "Ada", "count": 5, "gift": True})
    entry = main.ledger.page(kind="mcp.elicit")[0]
    assert isinstance(entry, McpElicit) and (entry.actor, entry.action, entry.subject) == (USER, "accept", agent_id)
    qtbot.waitUntil(lambda: dialogs.open == {} and dialogs.waiting == {})
    assert main.window.ledger_view.model.pager.what(entry) == f"shop asked {agent_id}: accept"  # the ledger view

    again = asyncio.ensure_future(questions(ElicitQuestion("shop", "Sign in", url="https://shop.example/login",
                                                           agent_id=agent_id)))
    qtbot.waitUntil(lambda: len(dialogs.waiting) == 1)
    second = dialogs.bring_up(agent_id)
    assert second is not None and second.accept_button.text() == "Open in browser"
    qtbot.keyClick(second, Qt.Key.Key_Escape)  # Esc declines; nothing was opened
    qtbot.waitUntil(again.done)
    assert again.result() == ElicitAnswer("decline")
    assert not shiboken6.isValid(second) or not second.isVisible()


def test_accept_is_held_after_a_keystroke_and_a_page_opens_only_when_asked(qtbot):
    now = [100.0]
    opened: list[str] = []
    sent: list[tuple[str, dict]] = []
    dialog = QuestionDialog(ElicitQuestion("shop", "Sign in", url="https://shop.example/login"),
                            lambda action, content: sent.append((action, content)), hold_ms=750,
                            clock=lambda: now[0], open_url=lambda url: opened.append(url) or True)
    qtbot.addWidget(dialog)
    dialog.hold()
    dialog.send()  # still held: a keystroke meant elsewhere sends nothing, opens nothing
    assert sent == [] and opened == []
    now[0] += 1.0
    dialog.send()
    assert sent == [("accept", {})] and opened == ["https://shop.example/login"]


def test_titled_choices_are_shown_by_title_and_answered_by_value(qtbot):
    from PySide6.QtWidgets import QComboBox

    schema = {"type": "object", "properties": {
        "hero": {"type": "string", "default": "hero-1",
                 "oneOf": [{"const": "hero-1", "title": "Superman"}, {"const": "hero-2", "title": "Wonder Woman"}]},
        "pet": {"type": "string", "enum": ["pet-1", "pet-2"], "enumNames": ["Cats", "Dogs"]},
        "plain": {"type": "string", "enum": ["a", "b"], "default": "b"}}}
    now = [100.0]
    sent: list[tuple[str, dict]] = []
    dialog = QuestionDialog(question_of("shop", "Pick", schema), lambda action, content: sent.append((action, content)),
                            hold_ms=0, clock=lambda: now[0])
    qtbot.addWidget(dialog)
    hero, pet, plain = (dialog.inputs[k] for k in ("hero", "pet", "plain"))
    assert all(isinstance(w, QComboBox) for w in (hero, pet, plain))
    assert [hero.itemText(i) for i in range(hero.count())] == ["Superman (hero-1)", "Wonder Woman (hero-2)"]
    assert hero.currentText() == "Superman (hero-1)"  # the server's default, shown by its title
    assert [pet.itemText(i) for i in range(pet.count())] == ["Cats (pet-1)", "Dogs (pet-2)"]
    assert plain.currentText() == "b"  # untitled: the value itself
    hero.setCurrentIndex(1)
    pet.setCurrentIndex(1)
    dialog.send()
    assert sent == [("accept", {"hero": "hero-2", "pet": "pet-2", "plain": "b"})]


def test_a_servers_words_are_shown_with_their_hidden_characters_as_escapes(qtbot):
    from PySide6.QtWidgets import QComboBox, QLabel

    schema = {"type": "object", "properties": {"to": {
        "type": "string", "title": "Pay \u202eto", "oneOf": [{"const": "acct-1", "title": "Bank\u202e1-tcca"}]}}}
    question = question_of("shop\u202e", "Confirm \u202epayment", schema)
    dialog = QuestionDialog(question, lambda action, content: None, hold_ms=0)
    qtbot.addWidget(dialog)
    texts = [label.text() for label in dialog.findChildren(QLabel)]
    assert not any("\u202e" in t for t in texts) and any("Confirm \\u202epayment" in t for t in texts)
    assert "\u202e" not in dialog.windowTitle()
    combo = dialog.inputs["to"]
    assert isinstance(combo, QComboBox) and combo.itemText(0) == "Bank\\u202e1-tcca (acct-1)"
    assert combo.currentData() == "acct-1"
