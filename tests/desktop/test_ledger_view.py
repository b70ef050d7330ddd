"""The ledger view: live entries, detail, undo (restore, conflicts, marks), paging, filters."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication

from desktop.app import build_desktop
from desktop.ledger_model import COL_CAUSE, COL_KIND, COL_WHAT, PAGE
from kernel.core.clock import ManualClock
from kernel.config.settings import Settings
from ledger import Ledger
from tests.service.attached import quit_desktop


def _row_text(view, row: int, col: int) -> str:
    model = view.model
    return model.data(model.index(row, col))


def _find(view, kind: str, what: str | None = None) -> int:
    for row, e in enumerate(view.model.pager.entries):
        if e.kind == kind and (what is None or _row_text(view, row, COL_WHAT) == what):
            return row
    raise AssertionError(f"no {kind} {what} row")


def test_empty_state_explains_itself(main):
    view = main.window.ledger_view
    assert view.model.rowCount() == 0
    assert view.stack.currentWidget() is view.empty
    assert "will appear here" in view.empty.text()


def test_new_entries_show_live_on_top(main):
    view = main.window.ledger_view
    a = main.spawn("scribe")
    assert view.stack.currentWidget() is view.table
    assert _row_text(view, 0, COL_KIND) == "agent.spawn"
    main.write(a, "notes/todo.md", "- [ ] call the bank\n")
    kinds = [_row_text(view, r, COL_KIND) for r in range(view.model.rowCount())]
    # newest first: the model's last request (its reply "done"), then the tool's result
    assert kinds[:2] == ["request", "result"] and "fs.write" in kinds and "lease.grant" in kinds and kinds[-1] == "agent.spawn"
    row = _find(view, "fs.write")
    assert _row_text(view, row, COL_WHAT) == "notes/todo.md"  # relative to the agent's workspace
    metrics = QFontMetrics(view.model.data(view.model.index(row, COL_WHAT), Qt.ItemDataRole.FontRole))
    assert metrics.horizontalAdvance("iiii") == metrics.horizontalAdvance("MMMM")  # paths in a fixed-pitch face
    seqs = [e.seq for e in view.model.pager.entries]
    assert seqs == sorted(seqs, reverse=True)
    assert main.window.status.counts.ledger_entries == main.record.count()


def test_detail_shows_input_result_changes_and_diff(main):
    view = main.window.ledger_view
    a = main.spawn("scribe")
    main.write(a, "notes.md", "one\n")
    main.write(a, "notes.md", "two\n")
    assert view.select_seq(view.model.pager.entries[_find(view, "tool")].seq)
    text = view.detail.toPlainText()
    assert '"path": "notes.md"' in text and "Result" in text and "File changes (1)" in text
    assert "-one" in text and "+two" in text
    html = view.detail.toHtml()
    assert view.palette_for_detail().added.lower() in html.lower()
    view.select_seq(view.model.pager.entries[_find(view, "fs.write")].seq)
    assert "+two" in view.detail.toPlainText()


def test_undo_after_an_entry_restores_the_file_and_reports_it(main, qtbot):
    view = main.window.ledger_view
    a = main.spawn("scribe")
    target = main.workspace / "notes.md"
    main.write(a, "notes.md", "first\n")
    point = main.record.last_seq()
    main.write(a, "notes.md", "second\n")
    assert target.read_text() == "second\n"
    view.select_seq(point)
    view.undo_after.click()
    confirm = view.last_dialog
    assert confirm.windowModality() == Qt.WindowModality.WindowModal
    assert [(r.action, r.path) for r in confirm.rows] == [("restore", "notes.md")]
    assert "Undo 1 change to 1 file" in confirm.headline.text()
    confirm.undo_button.click()
    assert target.read_text() == "first\n"
    result = view.last_dialog
    assert result is not confirm
    assert [(r.action, r.path) for r in result.rows] == [("restored", "notes.md")]
    assert "1 restored" in result.headline.text()
    # the reversed change is struck through with "undone by #N"
    undo_seq = main.record.page(kind="undo", limit=1)[0].seq

    def changes() -> list[int]:
        return [r for r, e in enumerate(view.model.pager.entries) if e.kind == "fs.write" and e.actor == a]

    main.until(lambda: _row_text(view, changes()[0], COL_CAUSE) == f"undone by #{undo_seq}")
    changed = changes()
    newest_change = changed[0]
    font = view.model.data(view.model.index(newest_change, COL_KIND), Qt.ItemDataRole.FontRole)
    assert font.strikeOut()
    older = changed[1]
    older_font = view.model.data(view.model.index(older, COL_KIND), Qt.ItemDataRole.FontRole)
    assert older_font is None or not older_font.strikeOut()


def test_undo_conflict_names_who_changed_the_file(main):
    view = main.window.ledger_view
    a = main.spawn("scribe")
    b = main.spawn("tester")
    main.write(a, "shared.md", "from scribe\n")
    point = main.record.last_seq()
    main.write(a, "mine.md", "scribe again\n")
    main.write(b, "shared.md", "from tester\n")
    view.select_seq(point)
    # undo only scribe's changes after the point: shared.md was changed since by the tester
    main.write(a, "shared.md", "scribe overwrites\n")
    main.write(b, "shared.md", "tester last\n")
    dialog = view.confirm_undo(main.record.get(point), only_agent=True)
    rows = {r.path: r for r in dialog.rows}
    assert rows["mine.md"].action == "delete"
    assert rows["shared.md"].action == "conflict" and f"by {b}" in rows["shared.md"].note
    assert f"made by {a} after" in dialog.headline.text()
    dialog.undo_button.click()
    assert not (main.workspace / "mine.md").exists()
    assert (main.workspace / "shared.md").read_text() == "tester last\n"
    result = view.last_dialog
    assert "1 conflict: that file was not touched." in result.headline.text()  # not "1 conflict(s)"
    assert any(r.action == "conflict" and b in r.note for r in result.rows)


def test_filters_requery(main):
    view = main.window.ledger_view
    a = main.spawn("scribe")
    b = main.spawn("tester")
    main.write(a, "docs/a.md", "a\n")
    main.write(b, "src/b.md", "b\n")
    view.actor.setText(b)
    view.apply_filters()
    assert {e.actor for e in view.model.pager.entries} == {b}
    view.actor.clear()
    view.kind.setCurrentIndex(view.kind.findData("fs.write"))
    assert [_row_text(view, r, COL_WHAT) for r in range(view.model.rowCount())] == ["src/b.md", "docs/a.md"]
    view.path.setText("docs/")
    view.apply_filters()
    assert [_row_text(view, r, COL_WHAT) for r in range(view.model.rowCount())] == ["docs/a.md"]
    main.write(a, "docs/c.md", "c\n")   # live entries respect the filters
    main.write(b, "src/d.md", "d\n")
    assert [_row_text(view, r, COL_WHAT) for r in range(view.model.rowCount())] == ["docs/c.md", "docs/a.md"]
    view.path.setText("nowhere/")
    view.apply_filters()
    assert view.model.rowCount() == 0 and view.empty.text() == "No entries match these filters."


def _bulk_ledger(root: Path, n: int) -> None:
    Ledger(root / "ledger.db").close()
    db = sqlite3.connect(root / "ledger.db")
    now = time.time()
    body = json.dumps({"input": {"path": "x.md"}})
    db.executemany(
        "INSERT INTO entries(seq, ts, actor, kind, version, tool, scope, path, cause, lease, before, after, "
        "reverts, body) VALUES (?, ?, 'a1', 'tool', 1, 'fs_read', 'fs.read', NULL, NULL, NULL, NULL, NULL, NULL, ?)",
        ((i, now - (n - i), body) for i in range(1, n + 1)))
    db.commit()
    db.close()


@pytest.mark.slow
@pytest.mark.in_process  # a bulk ledger written directly
def test_a_hundred_thousand_entries_open_fast_and_page_on_scroll(tmp_path, qloop, qtbot):
    n = 100_000
    root = tmp_path / "home"
    root.mkdir()
    _bulk_ledger(root, n)
    pages: list[int] = []
    desk = build_desktop(root, providers=lambda name: None, clock=ManualClock(),
                         settings=Settings(workspace=str(tmp_path)))
    qtbot.addWidget(desk.window)
    desk.window.show()
    model = desk.window.ledger_view.model
    table = desk.window.ledger_view.table
    assert model.rowCount() == PAGE  # how long it takes to open: benchmarks/ledger_view_bench.py (goal < 3 s)
    model.rowsInserted.connect(lambda _parent, first, last: pages.append(last - first + 1))  # rows as they come
    steps = 0
    while model.canFetchMore():
        before = model.rowCount()
        table.scrollToBottom()
        QApplication.processEvents()
        assert model.rowCount() - before <= PAGE  # never everything at once: a page per scroll
        steps += 1
        if steps == 10:
            assert model.rowCount() == 11 * PAGE
    assert model.rowCount() == n
    assert set(pages) == {PAGE} and sum(pages) == n - PAGE  # one page per scroll, each a whole page
    assert model.pager.entries[-1].seq == 1
    quit_desktop(desk, qtbot)
    desk.ledger.close()


def test_new_entries_ask_about_undo_marks_only_for_file_changes(tmp_path):
    """Attached, each undone-by question is a round trip to the kernel: entries that are not file changes
    (text, requests, grants: most of a busy stream) ask none."""
    from desktop.ledger_model import LedgerPager
    from ledger import FileChange, Ledger, ToolCall

    ledger = Ledger(tmp_path / "ledger.db")
    try:
        asked: list[list[int]] = []
        def page(filters, *, before=None, after=None, limit=200):
            return ledger.page(before=before, after=after, limit=limit, actor=filters.actor, kind=filters.kind,
                               path=filters.path)

        pager = LedgerPager(page, lambda seqs: (asked.append(list(seqs)), ledger.undone_by(seqs))[1])
        pager.reset()
        call = ledger.append(ToolCall(actor="a1", tool="fs_write", scope="fs.write", input={"path": "x"}))
        assert [e.seq for e in pager.take_new(call)] == [call.seq]
        assert asked == []
        change = ledger.append(FileChange(actor="a1", path=str(tmp_path / "x"), before=None, after=None,
                                          cause=call.seq))
        assert [e.seq for e in pager.take_new(change)] == [change.seq]
        assert asked == [[change.seq]]
    finally:
        ledger.close()


def test_compaction_and_prompt_entries_are_described_in_the_ledger_view(tmp_path):
    """The context engine's entries read as sentences: what was summarized or cleared, and the prompt sent."""
    from desktop.ledger_detail import entry_words
    from desktop.ledger_model import LedgerPager
    from ledger import Compaction, SystemPrompt

    pager = LedgerPager(lambda *a, **k: [], lambda seqs: {})
    summary = Compaction(actor="a1", seq=9, mode="summary", trigger="manual", first=3, last=8, entries=6,
                         tokens_before=183_000, tokens_after=21_000, summary="<b>goal</b>: tidy", focus="names")
    assert pager.what(summary) == "summarized (manual): 6 entries, 183k → 21k tokens"
    words = entry_words(summary)
    assert words is not None and "#3 to #8" in words and "&lt;b&gt;goal" in words and "names" in words
    cleared = Compaction(actor="a1", mode="clear", trigger="auto", last=7, entries=4)
    assert pager.what(cleared).startswith("old results cleared (auto): 4 results")
    assert "4 tool results recorded up to #7 were cleared" in (entry_words(cleared) or "")
    prompt = SystemPrompt(actor="a1", text="x" * 2_000, tools=({"name": "fs_read"},))
    assert pager.what(prompt) == "system prompt · 2k characters · 1 tool"
