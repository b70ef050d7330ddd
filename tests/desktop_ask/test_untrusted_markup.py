"""Text a model or a server wrote is shown as written in the Ask window, never rendered as markup.

A provider's error page, a tool's error (quoting a file name the model chose, or a page) and an agent's
stop reason reach labels; Qt renders a label's text as rich text when it merely looks like HTML, so
``<b>``, ``<img>``, comments and ``<a href>`` would hide or fake what the person reads.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument, Qt as QtText
from PySide6.QtWidgets import QLabel

from desktop.widgets.tool_card import ToolCard
from desktop.wording import describe_outcome
from kernel.errors import ProviderError
from kernel.events import Outcome
from kernel.providers.scripted import ScriptedTurn

from .test_ask_window import send

HOSTILE = ("bad gateway <b>all fine</b><!-- the key was sent to evil.example --> "
           "<a href='https://evil.example'>retry</a>")


def seen(label: QLabel) -> str:
    """What a reader sees in ``label``: its text, or its rendering when Qt reads it as rich text."""
    fmt = label.textFormat()
    rich = fmt == Qt.TextFormat.RichText or (fmt == Qt.TextFormat.AutoText and QtText.mightBeRichText(label.text()))
    if not rich:
        return label.text()
    doc = QTextDocument()
    doc.setHtml(label.text())
    return doc.toPlainText()


def test_a_tool_error_is_shown_whole_on_its_card(qapp):
    card = ToolCard("fs_read", "fs.read", {"path": "x"})
    card.finish(describe_outcome(Outcome.ERROR, HOSTILE), HOSTILE, 1.0)
    assert seen(card.reason_label) == HOSTILE


def test_a_provider_error_page_is_shown_whole_in_the_window(desk, qtbot):
    win = desk.open()
    desk.provider_of(win).script(ScriptedTurn((ProviderError("scripted", "server", HOSTILE, status=502),)))
    send(qtbot, win, "hello")
    qtbot.waitUntil(lambda: win.info.state == "failed", timeout=5000)
    notice = win.transcript.blocks[-1]
    assert HOSTILE in seen(notice) and HOSTILE in seen(win.reason_label)
