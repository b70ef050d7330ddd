"""The installed PySide6 must not leak references on emit (6.12.0 dropped one True per emit,
which aborts a streaming desktop within seconds; pyproject excludes it)."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal


class _Chatty(QObject):
    said = Signal(object)


def test_emit_keeps_true_and_none_reference_counts(qapp):
    chatty = _Chatty()
    heard: list[int] = []
    chatty.said.connect(heard.append)
    true_refs, none_refs = sys.getrefcount(True), sys.getrefcount(None)
    for i in range(2_000):
        chatty.said.emit(i)
    assert len(heard) == 2_000
    assert abs(sys.getrefcount(True) - true_refs) < 100
    assert abs(sys.getrefcount(None) - none_refs) < 100
