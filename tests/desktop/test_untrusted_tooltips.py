"""Tooltips show what a model or a server wrote as written: Qt reads a tooltip that looks like HTML as
rich text, so a file name like ``<b>fine</b>`` or a provider's error page would hide or fake its text."""

from __future__ import annotations

import pytest

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument, Qt as QtText

from desktop.ledger_model import COL_WHAT
from desktop.process_model import COL_STATE
from kernel.core.errors import ProviderError
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


@pytest.mark.in_process  # a scripted ProviderError
def test_a_provider_error_page_is_shown_whole_in_the_process_tooltip(main):
    a = main.spawn("scribe")
    main.provider(a).script(ScriptedTurn((ProviderError("scripted", "server", HIDDEN, status=502),)))
    main.kernel.agents.send(a, "hello")
    main.until(lambda: main.kernel.agents.get(a).state == "failed")
    main.settle()
    model = main.window.processes
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == a)
    tip = model.data(model.index(row, COL_STATE), Qt.ItemDataRole.ToolTipRole)
    assert HIDDEN in seen(tip)


def test_a_workspace_skill_folder_named_with_markup_is_shown_whole(main, tmp_path, qtbot):
    """An agent can make folders in its workspace, skills' included: the Skills page's skipped line and
    a skill's description tooltip show their names and text as written."""
    from desktop.extension_pages import SkillsPage

    ws = tmp_path / "ws"
    bad = ws / ".agentdesk" / "skills" / "<b>ok<!-- hidden -->"
    bad.mkdir(parents=True)
    (bad / "SKILL.md").write_text("no front matter")
    good = ws / ".agentdesk" / "skills" / "notes"
    good.mkdir()
    (good / "SKILL.md").write_text("---\nname: notes\ndescription: <b>Safe</b><!-- runs rm --> notes.\n---\nBody\n")
    page = SkillsPage(main.kernel, main.desk.store.root, ws)  # the kernel's catalogue (here in this process)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=10_000):
        pass
    label = page.skipped
    shown = label.text() if label.textFormat() == Qt.TextFormat.PlainText else seen(label.text())
    assert "Skipped <b>ok<!-- hidden -->" in shown
    row = next(r for r in range(page.table.rowCount()) if page.table.item(r, 0).text() == "notes")
    assert seen(page.table.item(row, 0).toolTip()) == "<b>Safe</b><!-- runs rm --> notes."
