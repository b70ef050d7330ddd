"""A guard against a PySide6 6.12.0 bug: every Python-side ``Signal.emit`` drops a reference to True.

``SignalInstance.emit`` returns ``True`` without taking a reference for it,
so each call from Python (the bridge's ``event.emit``, ``dataChanged.emit``
in every model, widget signals) decrements True's reference count by one.
True starts with a few thousand references; a streaming desktop emits
thousands of signals a second and CPython aborts with
"bool_dealloc: deallocating True or False" within seconds.

``guard_bool_refcounts`` detects the bug with one probe emit and, only when
it is present, gives True, False and None a very large reserve of references (the
singletons are never freed, so extra references cost nothing). At ten
thousand emits a second the reserve lasts for centuries of uptime. Remove
this module once the installed PySide6 no longer shows the bug.
"""

from __future__ import annotations

import ctypes
import sys

RESERVE = 1 << 44
_guarded = False


def emit_steals_true() -> bool:
    """True when a Python-side emit leaves True with one reference fewer."""
    from PySide6.QtCore import QObject, Signal

    class _Probe(QObject):
        ping = Signal()

    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(8):
        probe.ping.emit()
    return sys.getrefcount(True) < before - 4


def guard_bool_refcounts() -> bool:
    """Apply the reserve once if this PySide6 has the bug (CPython only); True when applied."""
    global _guarded
    if _guarded or sys.implementation.name != "cpython":
        return _guarded
    if emit_steals_true():
        for singleton in (True, False, None):  # None is short-changed too under load
            ctypes.c_ssize_t.from_address(id(singleton)).value += RESERVE
        _guarded = True
    return _guarded
