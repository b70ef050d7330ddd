"""The emit() refcount guard keeps a busy desktop alive (PySide6 6.12.0 drops a True per emit)."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from desktop.pyside_fix import guard_bool_refcounts


class _Chatty(QObject):
    said = Signal(object)


def test_many_emits_do_not_abort(qapp):
    guard_bool_refcounts()
    chatty = _Chatty()
    heard: list[int] = []
    chatty.said.connect(heard.append)
    for i in range(50_000):  # several times True's natural reference count
        chatty.said.emit(i)
    assert len(heard) == 50_000
