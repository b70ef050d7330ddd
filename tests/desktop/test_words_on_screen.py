"""Words and numbers on the desktop: plurals, rounded and grouped numbers, local times, provider and model."""

from __future__ import annotations

import json
import time

from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import QSpinBox

from desktop.ledger_detail import JSON_LINK, Palette, entry_html, local_time
from desktop.ledger_model import COL_WHAT
from desktop.process_model import COL_NAME, COL_TOKENS, ModelRole
from desktop.status import StatusCounts
from desktop.style import short_tokens
from desktop.undo_dialogs import describe_result
from ledger import LeaseGrant, Undo, UndoReport
from ledger.undo import Conflict
from kernel.providers.scripted import reply


def test_status_footer_says_one_entry():
    assert "ledger 1 entry ·" in StatusCounts(ledger_entries=1).footer()
    assert "ledger 11,500 entries ·" in StatusCounts(ledger_entries=11500).footer()
    assert StatusCounts().headline_html().endswith("0 leases")


def test_tokens_round_in_the_process_table(main):
    a = main.spawn("scribe")
    main.provider(a).script(reply("ok", usage=(14_000, 600)))
    main.kernel.agents.send(a, "count")
    main.until(lambda: main.kernel.agents.get(a).state == "idle")
    main.settle()
    model = main.window.processes
    assert model.data(model.index(0, COL_TOKENS)) == "14.6k / 200k"  # was "14k"
    assert short_tokens(41_200) == "41.2k"


def test_provider_and_model_in_the_table_and_the_ask_window(main):
    a = main.spawn("scribe")
    model = main.window.processes
    provider = main.kernel.agents.get(a).provider
    assert model.data(model.index(0, COL_NAME), ModelRole) == f"{provider} \u00b7 test-model"  # drawn after the name
    assert "test-model" in model.data(model.index(0, COL_NAME), Qt.ItemDataRole.ToolTipRole)
    ask = main.window.window_for(a)
    assert ask.model_label.text() == f"{provider} \u00b7 test-model" and ask.model_label.isVisibleTo(ask)


def test_quit_prompt_says_one_agent_is(main):
    import asyncio

    from kernel.providers.base import StreamEnd, TextChunk
    from kernel.providers.scripted import Hold, ScriptedTurn

    a = main.spawn("scribe")
    gate, reached = asyncio.Event(), asyncio.Event()
    main.provider(a).script(ScriptedTurn((TextChunk("working"), Hold(gate, reached), StreamEnd("end_turn"))))
    main.kernel.agents.send(a, "go")
    main.until(reached.is_set)
    main.window.close()
    text = main.window.close_prompt.text()
    assert text.startswith("1 agent is still working: scribe.") and "(s)" not in text
    main.window.close_prompt.reject()
    gate.set()
    main.until(lambda: main.kernel.agents.get(a).state == "idle")


def test_undo_result_says_one_conflict():
    one = UndoReport(after=3, undo_seq=9, conflicts=(Conflict("/w/a.md", "changed since"),))
    head, _rows = describe_result(one, str)
    assert head == "Undo #9: nothing reversed. 1 conflict: that file was not touched."
    two = UndoReport(after=3, undo_seq=9, conflicts=(Conflict("/w/a.md", "x"), Conflict("/w/b.md", "y")))
    assert describe_result(two, str)[0].endswith("2 conflicts: those files were not touched.")


def test_ledger_row_says_one_conflict(main):
    pager = main.window.ledger_view.model.pager
    undo = Undo(actor="user", seq=5, after_seq=2, reversed=(3,), conflicts=("/w/a.md",))
    assert pager.what(undo) == "after #2: 1 change, 1 conflict"


def _grant(ts: float) -> LeaseGrant:
    return LeaseGrant(actor="user", seq=11, ts=ts, subject="a7", scope="fs.write", until=ts + 900, duration_s=900)


class _NoLedger:
    def diff(self, seq):  # pragma: no cover - a grant has no diff
        raise AssertionError

    def caused_by(self, seq):  # pragma: no cover
        raise AssertionError


def test_a_grant_reads_in_words_with_local_times_and_json_behind_a_toggle():
    ts = time.mktime(time.localtime()[:3] + (12, 0, 0, 0, 0, -1))  # today's noon: the end is today too
    entry = _grant(ts)
    shown = entry_html(_NoLedger(), entry, lambda p, _a: p, Palette())
    until = time.strftime("%H:%M:%S", time.localtime(ts + 900))
    assert "Granted <code>fs.write</code> to a7 for 15 minutes, until " + until in shown
    assert str(int(ts + 900)) not in shown and f"{ts + 900}" not in shown  # no epoch in sight
    assert JSON_LINK in shown and "show JSON" in shown and '"until"' not in shown
    opened = entry_html(_NoLedger(), entry, lambda p, _a: p, Palette(), show_json=True)
    assert "hide JSON" in opened and "&quot;until&quot;" in opened


def test_local_time_names_the_day_when_it_is_not_today():
    yesterday = time.time() - 86_400 * 2
    assert local_time(yesterday) == time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(yesterday))


def test_the_detail_pane_toggles_json(main):
    a = main.spawn("scribe")
    main.write(a, "a.md", "x\n")
    view = main.window.ledger_view
    grant = next(e for e in view.model.pager.entries if e.kind == "lease.grant")
    assert view.select_seq(grant.seq)
    assert "Granted" in view.detail.toPlainText() and '"until"' not in view.detail.toPlainText()
    view.detail.anchorClicked.emit(QUrl(JSON_LINK))
    text = view.detail.toPlainText()
    assert json.loads(text[text.index("{"):])["until"]
    view.toggle_json()
    assert '"until"' not in view.detail.toPlainText()
    tip = view.model.data(view.model.index(view.model.pager.row_of(grant.seq), COL_WHAT), 3)  # ToolTipRole
    assert tip == view.model.pager.what(grant) and tip.startswith(f"\u2192 {a}")


def test_raise_budget_groups_digits(main):
    a = main.spawn("scribe")
    ask = main.window.window_for(a)
    dialog = ask.ask_raise_budget()
    spin = dialog.findChild(QSpinBox)
    assert spin.isGroupSeparatorShown() and "," in spin.text()
    dialog.reject()
