"""The Ask window says who answered a reply when it was not the model the agent asked for (issue 25)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel

from kernel.providers.base import StreamEnd, TextChunk, UsageReport
from kernel.providers.scripted import ScriptedTurn, reply

from .test_ask_window import send


def notices(win) -> list[str]:
    return [label.text() for label in win.findChildren(QLabel, "notice")]


@pytest.mark.in_process
def test_a_reply_from_another_model_is_named_under_it(desk, qtbot):
    win = desk.open()
    desk.provider_of(win).script(
        reply("from the model asked for"),
        ScriptedTurn((UsageReport(10, 0), TextChunk("from another"), UsageReport(output_tokens=5),
                      StreamEnd("end_turn", None, "other-model"))))
    send(qtbot, win, "one")
    desk.until_state(win, "idle")
    assert notices(win) == []  # the model asked for answered: nothing to say
    send(qtbot, win, "two")
    desk.until_state(win, "idle")
    qtbot.waitUntil(lambda: notices(win) == ["Answered by scripted-scribe:other-model."], timeout=5000)
