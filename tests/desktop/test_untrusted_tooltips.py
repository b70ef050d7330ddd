"""Tooltips show what a model or a server wrote as written: Qt reads a tooltip that looks like HTML as
rich text, so a file name like ``<b>fine</b>`` or a provider's error page would hide or fake its text."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument, Qt as QtText

from desktop.ledger_model import COL_WHAT
from desktop.process_model import COL_STATE
from kernel.errors import ProviderError
from kernel.providers.scripted import ScriptedTurn

HIDDEN = "<b>report</b><!-- x.sh --> <a href='evil.example'>notes</a>.md"


def seen(tip: str) -> str:
    """What a reader sees in a tooltip."""
    if not QtText.mightBeRichText(tip):
        return tip
    doc = QTextDocument()
    doc.setHtml(tip)
    return doc.toPlainText()


def test_a_file_name_with_markup_is_shown_whole_in_the_ledger_tooltip(main):
    view = main.window.ledger_view
    a = main.spawn("scribe")
    main.write(a, HIDDEN, "x\n")
    main.settle()
    row = next(r for r, e in enumerate(view.model.pager.entries) if e.kind == "fs.write")
    tip = view.model.data(view.model.index(row, COL_WHAT), Qt.ItemDataRole.ToolTipRole)
    assert seen(tip).endswith(HIDDEN)


def test_a_provider_error_page_is_shown_whole_in_the_process_tooltip(main):
    a = main.spawn("scribe")
    main.provider(a).script(ScriptedTurn((ProviderError("scripted", "server", HIDDEN, status=502),)))
    main.kernel.send(a, "hello")
    main.until(lambda: main.kernel.agent(a).state == "failed")
    main.settle()
    model = main.window.processes
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == a)
    tip = model.data(model.index(row, COL_STATE), Qt.ItemDataRole.ToolTipRole)
    assert HIDDEN in seen(tip)
