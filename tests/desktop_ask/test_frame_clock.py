"""The frame clock staggers redraws: a few views per pass, every one of them eventually, none twice."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from desktop.frame_clock import FrameClock
from desktop.widgets.transcript import Transcript


def test_due_callbacks_run_a_few_per_pass_earliest_first(qapp):
    clock = FrameClock(per_pass=3, budget_ms=1000)
    ran: list[int] = []
    for i in range(8):
        clock.request(i, lambda i=i: ran.append(i), delay_ms=0)
    clock.request(0, lambda: ran.append(-1), delay_ms=0)  # already pending: changes nothing
    clock._run()
    assert ran == [0, 1, 2]
    clock._run()
    clock._run()
    assert ran == list(range(8)) and not any(clock.pending(i) for i in range(8))


def test_staggered_flushes_deliver_all_text(qapp, qtbot):
    clock = FrameClock(per_pass=2)
    transcripts = [Transcript(f"agent{i}", lambda seqs: [], frames=clock) for i in range(7)]
    for transcript in transcripts:
        qtbot.addWidget(transcript)
    for word in range(20):
        for transcript in transcripts:
            transcript.add_text(f"word{word} ")
    qtbot.waitUntil(lambda: not any(t.pending for t in transcripts))
    expected = "".join(f"word{i} " for i in range(20))
    assert [t.blocks[-1].raw for t in transcripts] == [expected] * 7
    QApplication.processEvents()


def test_a_costly_callback_gets_a_pass_of_its_own(qapp):
    clock = FrameClock(per_pass=4, budget_ms=1000)
    ran: list[str] = []
    clock.request("a", lambda: ran.append("a"), delay_ms=0)
    clock.request("heavy", lambda: ran.append("heavy"), delay_ms=0, cost=4)
    clock.request("b", lambda: ran.append("b"), delay_ms=0)
    clock._run()
    assert ran == ["a"]
    clock._run()
    assert ran == ["a", "heavy"]
    clock._run()
    assert ran == ["a", "heavy", "b"] and clock.idle


def test_end_of_turn_shows_the_text_at_once_and_settles_it_later(qapp, qtbot):
    frames = FrameClock()
    transcript = Transcript("scribe", lambda seqs: [], frames=frames)
    qtbot.addWidget(transcript)
    transcript.add_text("Done. It works")
    transcript.end_turn()
    block = transcript.blocks[-1]
    assert block.raw == "Done. It works" and transcript.current is None and not block.labels
    transcript.add_text("next")  # a new reply goes below, in a block of its own
    qtbot.waitUntil(lambda: frames.idle)
    assert not block.labels and not block.live.isHidden()  # in the background: shown, settled when activated
    transcript.activated()
    qtbot.waitUntil(lambda: frames.idle)
    assert len(block.labels) == 1 and "Done. It works" in block.text() and block.live.isHidden()
    assert transcript.blocks[-1] is not block and transcript.blocks[-1].raw == "next"
