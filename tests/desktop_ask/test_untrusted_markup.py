"""Text a model or a server wrote is shown as written in the Ask window, never rendered as markup.

A provider's error page, a tool's error (quoting a file name the model chose, or a page) and an agent's
stop reason reach labels; Qt renders a label's text as rich text when it merely looks like HTML, so
``<b>``, ``<img>``, comments and ``<a href>`` would hide or fake what the person reads.
"""

from __future__ import annotations

import pytest

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument, Qt as QtText
from PySide6.QtWidgets import QLabel

from desktop.lease_dialog import LeaseDialog
from desktop.widgets.tool_card import ToolCard
from desktop.wording import describe_outcome
from kernel.api import CallPreview, LeaseRequest
from kernel.core.errors import ProviderError
from kernel.core.events import Outcome
from kernel.leases.lease import offered_durations
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


@pytest.mark.in_process  # a scripted ProviderError
def test_a_provider_error_page_is_shown_whole_in_the_window(desk, qtbot):
    win = desk.open()
    desk.provider_of(win).script(ScriptedTurn((ProviderError("scripted", "server", HOSTILE, status=502),)))
    send(qtbot, win, "hello")
    desk.until_state(win, "failed")
    notice = win.transcript.blocks[-1]
    assert HOSTILE in seen(notice) and HOSTILE in seen(win.reason_label)


def test_the_lease_dialog_shows_bidi_and_control_characters_in_a_path_visibly(qtbot):
    """``invoice\\u202efdp.sh`` reads as ``invoicehs.pdf`` when Qt honours the override: the person would
    grant a write of a shell script believing it a PDF. Such characters are shown as escapes."""
    path = "invoice\u202efdp.sh"
    request = LeaseRequest(id=1, agent_id="a7", agent_name="scribe", tool="fs_write", scope="fs.write",
                           input={"path": path, "content": "#!/bin/sh\n"}, durations=offered_durations(900),
                           default_duration=900, expires_at=0.0,
                           preview=CallPreview(f"create {path} (1 line)", path=path))
    for req in (request, replace(request, once=True, reason="scribe read untrusted content")):
        dialog = LeaseDialog(req, lambda _d: None, now=lambda: 0.0, grant_delay_ms=0)
        qtbot.addWidget(dialog)
        texts = [seen(label) for label in dialog.findChildren(QLabel)]
        if dialog.arguments_view is not None:
            texts.append(dialog.arguments_view.toPlainText())
        assert not any("\u202e" in t for t in texts)
        assert any("invoice\\u202efdp.sh" in t for t in texts)
    card = ToolCard("fs_write", "fs.write", request.input)
    assert "\u202e" not in card.summary_label.text()
