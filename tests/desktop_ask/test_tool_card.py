"""A tool card says how long a call ran, and nothing about time for a call that never ran."""

from __future__ import annotations

from desktop.wording import describe_outcome
from kernel.core.events import Outcome
from desktop.widgets.tool_card import ToolCard


def test_a_refused_call_shows_no_duration(qapp):
    card = ToolCard("fs_write", "fs.write", {"path": "a.txt", "content": "x"})
    card.finish(describe_outcome(Outcome.DENIED, "permission denied: the user did not grant fs.write"), "denied", 0.0)
    assert card.status_label.text() == "\u2717"


def test_a_call_that_ran_shows_its_duration(qapp):
    card = ToolCard("fs_read", "fs.read", {"path": "a.txt"})
    card.finish(describe_outcome(Outcome.OK, "hello"), "hello", 3.2)
    assert card.status_label.text() == "\u2713 3 ms"
    failed = ToolCard("fs_read", "fs.read", {"path": "b.txt"})
    failed.finish(describe_outcome(Outcome.ERROR, "b.txt does not exist"), "b.txt does not exist", 1.4)
    assert failed.status_label.text() == "\u2717 1 ms"
