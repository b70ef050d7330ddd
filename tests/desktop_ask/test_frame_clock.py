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
