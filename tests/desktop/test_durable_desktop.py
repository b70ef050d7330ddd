"""Windows are views: close while working and reopen from the table; a restarted desktop reopens its
windows with the agents rebuilt from the record; History (search, read-only, continue); cost on screen."""

from __future__ import annotations

import pytest

import asyncio
import json
from pathlib import Path

from PySide6.QtCore import Qt

from desktop.app import build_desktop
from desktop.desktop_state import DesktopState
from kernel.leases.approver import Grant
from kernel.core.clock import ManualClock
from kernel.providers.base import StreamEnd, TextChunk, UsageReport
from kernel.providers.scripted import Hold, ScriptedProvider, ScriptedTurn, reply
from kernel.config.settings import Settings
from tests.service.attached import quit_desktop


def test_closing_a_window_keeps_the_agent_working_and_the_table_reopens_it(main, qtbot):
    a = main.spawn("scribe")
    gate, reached = asyncio.Event(), asyncio.Event()
    main.provider(a).script(ScriptedTurn((UsageReport(5, 0), TextChunk("working on it, "), Hold(gate, reached),
                                          TextChunk("done."), StreamEnd("end_turn"))))
    window = main.window.window_for(a)
    qtbot.keyClicks(window.input, "tidy up")
    qtbot.keyClick(window.input, Qt.Key.Key_Return)
    main.until(reached.is_set)
    window.close()
    assert not window.isVisible()
    assert main.kernel.agents.get(a).state == "running"  # the view closed, not the agent
    assert main.window.processes.rowCount() == 1
    gate.set()
    main.until(lambda: main.kernel.agents.get(a).state == "idle")

    # Enter on its row in the process table opens it again, with everything that happened meanwhile
    view = main.window.process_view
    view.setFocus()
    view.setCurrentIndex(main.window.processes.index(0, 1))
    qtbot.keyClick(view, Qt.Key.Key_Return)
    reopened = main.window.windows[a]
    main.until(reopened.isVisible)
    main.settle()
    assert [b.raw for b in reopened.transcript.blocks] == ["tidy up", "working on it, done."]


def _desktop(home: Path, ws: Path, clock: ManualClock, providers: dict[str, ScriptedProvider], qtbot):
    desk = build_desktop(home, providers=lambda name: providers[name], clock=clock,
                         settings=Settings(user_name="Ada", workspace=str(ws)), grant_delay_ms=0)
    qtbot.addWidget(desk.window)
    desk.window.show()
    return desk


def _quit(desk, qtbot) -> None:
    quit_desktop(desk, qtbot)
    desk.ledger.close()


@pytest.mark.in_process  # the in-process restart; attached: tests/service/test_desktop_reopen.py
def test_a_restarted_desktop_reopens_its_windows_with_the_whole_transcript(tmp_path, qloop, qtbot):
    home, ws, clock = tmp_path / "home", tmp_path / "ws", ManualClock()
    ws.mkdir()
    providers = {"scripted": ScriptedProvider()}
    desk = _desktop(home, ws, clock, providers, qtbot)
    a = desk.kernel.agents.spawn("writer", provider="scripted", model="m").id
    b = desk.kernel.agents.spawn("closed", provider="scripted", model="m").id
    providers["scripted"].script(reply("Writing it.", tools=(("fs_write", {"path": "n.txt", "content": "hi\n"}),)),
                                 reply("Written."))
    win = desk.window.window_for(a)
    desk.window.window_for(b).close()
    desk.kernel.agents.send(a, "write n.txt")
    qtbot.waitUntil(lambda: bool(desk.kernel.leases.pending()), timeout=5000)
    desk.kernel.leases.resolve(desk.kernel.leases.pending()[0].id, Grant(300.0))
    qtbot.waitUntil(lambda: desk.kernel.agents.get(a).state == "idle", timeout=5000)
    assert win.isVisible()
    assert DesktopState(home).open_windows() == [a]
    _quit(desk, qtbot)
    assert DesktopState(home).open_windows() == [a]  # quitting closes the windows but remembers them

    again = _desktop(home, ws, clock, providers, qtbot)
    try:
        assert [x.id for x in again.kernel.agents.list()] == [a, b]
        assert list(again.window.windows) == [a]
        reopened = again.window.windows[a]
        qtbot.waitUntil(reopened.isVisible, timeout=5000)
        assert [blk.raw for blk in reopened.transcript.blocks if hasattr(blk, "raw")] == [
            "write n.txt", "Writing it.", "Written."]
        [card] = reopened.transcript.cards.values()
        assert card.tool == "fs_write" and card.tool_input == {"path": "n.txt", "content": "hi\n"}
    finally:
        _quit(again, qtbot)


def test_a_hostile_state_file_is_ignored(tmp_path):
    state = DesktopState(tmp_path)
    for text in ("not json", "[1, 2]", json.dumps({"open_windows": "a1"}),
                 json.dumps({"open_windows": ["../../etc", 7, None, "a1; rm", "a2", "a2", "a" + "9" * 40]})):
        state.path.write_text(text)
        assert state.open_windows() in ([], ["a2"])
    state.path.write_text(json.dumps({"open_windows": [f"a{i}" for i in range(1000)]}))
    assert len(state.open_windows()) == 64
    state.path.write_bytes(b"\xff\xfe" * 10)
    assert state.open_windows() == []


def test_history_search_open_read_only_and_continue(main, qtbot):
    a = main.spawn("lovelace")
    b = main.spawn("babbage")
    main.provider(a).script(reply("The engine computes Bernoulli numbers."))
    main.kernel.agents.send(a, "Tell me about the analytical engine")
    main.until(lambda: main.kernel.agents.get(a).state == "idle")
    main.window.window_for(a)
    main.window.process_view.build_menu(a).actions()  # the Archive action is in the row's menu
    [archive] = [x for x in main.window.process_view.build_menu(a).actions() if x.text().startswith("Archive")]
    assert archive.isEnabled()
    archive.trigger()
    main.until(lambda: main.window.processes.rowCount() == 1)
    assert a not in main.window.windows  # its window went with it

    main.window.activateWindow()  # the user is back in the main window
    main.until(main.window.isActiveWindow)
    qtbot.keyClick(main.window, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
    history = main.window.history
    assert history is not None and history.isVisible()
    assert [i.id for i in history.model.items] == [a]
    assert history.model.index(0, 2).data() == "Tell me about the analytical engine"
    assert history.model.index(0, 5).data() == "tokens only"  # a model without a price
    qtbot.keyClicks(history.search, "babbage")
    assert history.model.items == [] and history.empty.isVisible()
    history.search.clear()
    qtbot.keyClicks(history.search, "ANALYTICAL")
    assert [i.id for i in history.model.items] == [a]

    history.table.setFocus()
    qtbot.keyClick(history.table, Qt.Key.Key_Return)
    viewer = history.viewers[a]
    assert viewer.isVisible()
    assert [blk.raw for blk in viewer.transcript.blocks] == [
        "Tell me about the analytical engine", "The engine computes Bernoulli numbers."]

    qtbot.keyClick(history.table, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    main.until(lambda: main.window.processes.rowCount() == 2)
    assert a in main.window.windows and main.window.windows[a].isVisible()
    assert history.model.items == []
    assert {x.id for x in main.kernel.agents.list()} == {a, b}


@pytest.mark.in_process  # scripted providers named like priced models
def test_cost_is_shown_for_priced_models_and_tokens_only_otherwise(main, qtbot):
    main.providers["anthropic"] = ScriptedProvider().script(reply("priced", usage=(200_000, 20_000)))
    priced = main.kernel.agents.spawn("priced", provider="anthropic", model="claude-sonnet-4-5").id
    free = main.spawn("local")
    main.provider(free).script(reply("unpriced", usage=(1000, 100)))
    for agent in (priced, free):
        main.kernel.agents.send(agent, "hi")
        main.until(lambda agent=agent: main.kernel.agents.get(agent).state == "idle")
    main.settle()
    rows = {main.window.processes.index(r, 0).data(): r for r in range(2)}
    tokens = {aid: main.window.processes.index(row, 3).data() for aid, row in rows.items()}
    assert tokens[priced] == "220k \u00b7 $0.90"  # 0.2 M in at $3, 0.02 M out at $15; the bar shows the budget
    assert tokens[free] == "1.1k / 200k"  # no price: tokens only
    assert "tokens only" in main.window.processes.index(rows[free], 3).data(Qt.ItemDataRole.ToolTipRole)
    assert main.window.window_for(priced).cost_label.text() == "$0.90"
    assert main.window.window_for(free).cost_label.text() == "no price"
    main.window.status.refresh()
    assert main.window.status.counts.footer().startswith("tokens today 221k ($0.90 + 1.1k unpriced)")
