"""Every stylesheet the Ask window sets parses: Qt says nothing about them, in light or dark."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from desktop.theme import STATES
from desktop.widgets.state_badge import StateBadge
from desktop.widgets.tool_card import ToolCard
from desktop.widgets.transcript import Transcript
from kernel.core.events import AgentState, Outcome
from kernel.providers.scripted import reply


def _dark():
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "make_screenshots", Path(__file__).resolve().parents[2] / "docs" / "make_screenshots.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.dark_palette()


@pytest.mark.parametrize("dark", [False, True])
def test_no_stylesheet_warnings(qtbot, qtlog, dark):
    app = QApplication.instance()
    light = app.palette()
    if dark:
        app.setPalette(_dark())
    try:
        for state in STATES:
            badge = StateBadge(state)
            qtbot.addWidget(badge)
            badge.show()
        transcript = Transcript("scribe", lambda seqs: [])
        qtbot.addWidget(transcript)
        transcript.add_notice("scribe failed: the provider said no")
        card = transcript.start_call("c1", "fs_write", "fs.write", {"path": "a.md"})
        transcript.finish_call("c1", Outcome.DENIED, "permission denied: fs.write", 3.0)
        assert isinstance(card, ToolCard)
        transcript.show()
        qtbot.waitExposed(transcript)
    finally:
        app.setPalette(light)
    messages = [r.message for r in qtlog.records]
    assert not [m for m in messages if "stylesheet" in m.lower()], messages


def test_ask_window_sets_no_bad_stylesheet(desk, qtbot, qtlog):
    win = desk.open()
    desk.provider_of(win).script(reply("fine"))
    win.state_badge.set_state(AgentState.WAITING)
    win.transcript.add_notice("stopped")
    win.key_notice.show()
    qtbot.waitExposed(win)
    assert not [r.message for r in qtlog.records if "stylesheet" in r.message.lower()]
