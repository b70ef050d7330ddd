"""Cyclic garbage is collected on the Qt thread only: a worker thread that allocates past every
threshold sets off no collection there, and the desktop's timer collects what it left."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
from typing import Any

from PySide6.QtCore import QObject

from desktop.main_thread_gc import MainThreadCollector, collect_due
from tests.conftest import ROOT


class Cycle:
    def __init__(self) -> None:
        self.me = self
        self.qt = QObject()  # a Qt wrapper inside the cycle, as a window's helpers are


def _collections() -> tuple[list[int], Any]:
    threads: list[int] = []

    def seen(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            threads.append(threading.get_ident())

    gc.callbacks.append(seen)
    return threads, seen


def test_a_worker_thread_never_collects_and_the_qt_thread_does(qtbot, qapp):
    before = gc.isenabled()
    collector = MainThreadCollector(qapp, interval_ms=10)
    assert not gc.isenabled()
    threads, seen = _collections()
    try:
        def allocate() -> None:
            for _ in range(20 * gc.get_threshold()[0]):
                Cycle()

        worker = threading.Thread(target=allocate)
        worker.start()
        worker.join()
        assert threads == []  # twenty thresholds' worth of cycles, and no collection in the worker
        assert gc.get_count()[0] > gc.get_threshold()[0]
        qtbot.waitUntil(lambda: bool(threads), timeout=5000)
        assert set(threads) == {threading.get_ident()}
        assert gc.get_count()[0] <= gc.get_threshold()[0]
    finally:
        gc.callbacks.remove(seen)
        collector.stop()
    assert gc.isenabled() == before  # stop gives back what it found


def test_collect_due_collects_the_generations_cpython_would():
    enabled = gc.isenabled()
    gc.disable()
    gc.collect()
    threads, seen = _collections()
    try:
        assert collect_due() == 0 and threads == []  # nothing past a threshold: nothing collected
        for _ in range(gc.get_threshold()[0] + 1):
            Cycle()
        assert collect_due() == 1 and gc.get_count()[0] == 0
        for _ in range(gc.get_threshold()[1] + 1):  # each generation-0 collection counts one towards generation 1
            gc.collect(0)
        for _ in range(gc.get_threshold()[0] + 1):
            Cycle()
        assert collect_due() == 2 and gc.get_count()[:2] == (0, 0)
        assert set(threads) == {threading.get_ident()}
    finally:
        gc.callbacks.remove(seen)
        if enabled:
            gc.enable()


APP_SCRIPT = """
import gc, threading, time
from desktop.app import make_app
from PySide6.QtCore import QEventLoop, QObject
app = make_app([])
assert not gc.isenabled(), "the automatic collector is still on"
class Cycle:
    def __init__(self):
        self.me = self
        self.qt = QObject()
threads = []
gc.callbacks.append(lambda phase, _info: threads.append(threading.get_ident()) if phase == "start" else None)
worker = threading.Thread(target=lambda: [Cycle() for _ in range(20 * gc.get_threshold()[0])])
worker.start()
worker.join()
assert threads == [], "a worker thread collected"
end = time.monotonic() + 30
while not threads and time.monotonic() < end:
    app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)  # wakes at the collector's tick
assert threads and set(threads) == {threading.get_ident()}, threads
print("collected on the Qt thread")
"""


def test_the_desktops_application_collects_on_its_own_thread_from_the_start(tmp_path):
    """``make_app`` (the desktop, the screenshot script, the benchmarks) installs the collector itself, and
    its timer outlives the Python object that made it."""
    done = subprocess.run([sys.executable, "-c", APP_SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "collected on the Qt thread"
