"""The process table and the status line say when an agent is answered by a fallback model (issue 25):
"degraded: anthropic overloaded ×3 — answering with openai:gpt-5", from the kernel's events alone; History
names who answered an agent when it was not its own model."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt

from desktop.history_view import COL_MODEL, HistoryModel
from desktop.process_model import COL_STATE, DEGRADED_BADGE, ProcessRows, ProcessTableModel
from desktop.status import StatusCounts
from kernel.api import AgentInfo, AgentSpawned, AgentState, HistoryItem, UsageUpdated

WHY = "anthropic overloaded ×3 — answering with openai:gpt-5"


def info(agent_id: str, degraded: str = "", state: AgentState = AgentState.RUNNING) -> AgentInfo:
    return AgentInfo(agent_id, "writer", state, "", "anthropic", "claude-sonnet-4-5", 10_000, 10, 5, 0.0, "/w",
                     degraded=degraded)


def test_a_fallback_answering_shows_in_the_table_and_the_status_line(qapp) -> None:
    rows = ProcessRows()
    model = ProcessTableModel(rows)
    counts = StatusCounts(rows=rows)
    rows.apply(AgentSpawned(info("a1")))
    rows.apply(AgentSpawned(info("a2")))
    cell = model.index(0, COL_STATE)
    assert DEGRADED_BADGE not in model.data(cell) and counts.degraded_text() == ""
    rows.apply(UsageUpdated(info("a1", WHY)))
    assert DEGRADED_BADGE in model.data(cell)
    assert f"degraded: {WHY}" in model.data(cell, Qt.ItemDataRole.ToolTipRole)
    assert counts.degraded_text() == f"degraded: {WHY}" and "degraded: anthropic overloaded" in counts.headline_html()
    rows.apply(UsageUpdated(info("a2", WHY)))
    assert counts.degraded_text() == f"degraded: {WHY} (+1 more)"
    rows.apply(UsageUpdated(info("a1")))  # back on its primary
    rows.apply(UsageUpdated(replace(info("a2", WHY), state=AgentState.KILLED)))  # a killed agent is not degraded
    assert DEGRADED_BADGE not in model.data(cell) and counts.degraded_text() == ""


def test_the_ledger_view_says_who_answered_and_what_a_breaker_did() -> None:
    from desktop.ledger_model import LedgerPager
    from kernel.api import ModelRequest, RouteBreaker

    pager = LedgerPager(lambda **_kw: [], lambda _seqs: {})
    fallback = ModelRequest(actor="a1", reason="user-turn", provider="openai", model="gpt-5", status="ok",
                            input_tokens=10, output_tokens=5, requested_provider="anthropic",
                            requested_model="claude-sonnet-4-5", served_provider="openai", served_model="gpt-5",
                            route_reason="fallback after anthropic overloaded ×3")
    assert pager.what(fallback) == ("ok · 15 tokens · user-turn · answered by openai:gpt-5 "
                                    "(fallback after anthropic overloaded ×3)")
    opened = RouteBreaker(actor="kernel", provider="anthropic", model="claude-sonnet-4-5", state="half_open",
                          reason="probing anthropic:claude-sonnet-4-5 after anthropic overloaded ×3")
    assert pager.what(opened).startswith("anthropic:claude-sonnet-4-5 half-open · probing")


def _item(served: tuple[str, ...]) -> HistoryItem:
    return HistoryItem("a1", "routed", "go", 1.0, 2.0, 10, 5, None, "anthropic", "claude-sonnet-4-5", True, False,
                       served)


def test_the_history_window_shows_who_answered(qapp) -> None:
    model = HistoryModel()
    model.set_items([_item(()), _item(("openai:gpt-5",)), _item(("gemini:gemini-2.5-pro", "openai:gpt-5"))])
    cells = [model.index(row, COL_MODEL).data() for row in range(3)]
    assert cells == ["claude-sonnet-4-5", "claude-sonnet-4-5 \u00b7 answered by openai:gpt-5",
                     "claude-sonnet-4-5 \u00b7 answered by gemini:gemini-2.5-pro (+1 more)"]
    tip = model.index(2, COL_MODEL).data(Qt.ItemDataRole.ToolTipRole)
    assert "answered by gemini:gemini-2.5-pro, openai:gpt-5 too" in tip
