"""The transcript's flat scroll bar: drawn where the style puts the handle, and the transcript still follows."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop.widgets.flat_scroll_bar import FlatScrollBar
from desktop.widgets.transcript import Transcript


def test_handle_is_where_the_style_places_it_and_it_paints(qtbot):
    bar = FlatScrollBar(Qt.Orientation.Vertical)
    qtbot.addWidget(bar)
    bar.resize(14, 300)
    bar.setRange(0, 900)
    bar.setPageStep(300)
    top = bar.handle_rect()
    bar.setValue(900)
    bottom = bar.handle_rect()
    assert top.top() < bottom.top() and bottom.bottom() <= 300
    assert not bar.grab().isNull()


def test_transcript_uses_it_and_follows_a_growing_reply(qtbot):
    transcript = Transcript("scribe", lambda seqs: [])
    qtbot.addWidget(transcript)
    transcript.resize(300, 200)
    transcript.show()
    assert isinstance(transcript.verticalScrollBar(), FlatScrollBar)
    for i in range(200):
        transcript.add_text(f"word{i} ")
    transcript.flush_text()
    bar = transcript.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
