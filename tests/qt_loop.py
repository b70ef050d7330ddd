"""The qasync loop fixture shared by the desktop test folders.

The loop is created "already running" on the test's QApplication, so kernel
coroutines run whenever Qt processes events, which is what
``qtbot.waitUntil`` and ``qtbot.waitSignal`` do; teardown cancels what is
left and undoes the "already running" state, since ``exec()`` never ran.
"""

from __future__ import annotations

import asyncio
from typing import Iterator

import pytest
import qasync
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication

from desktop.main_thread_gc import MainThreadCollector, collect_due


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    yield loop
    for task in asyncio.all_tasks(loop):
        task.cancel()
    QApplication.processEvents()
    loop._QEventLoop__is_running = False  # type: ignore[attr-defined]  # never ran exec(); undo already_running
    loop._after_run_forever()
    asyncio.events._set_running_loop(None)
    loop.close()
    asyncio.set_event_loop(None)


_collector: list[MainThreadCollector] = []


@pytest.fixture(autouse=True)
def qt_deletes_the_windows() -> Iterator[None]:
    """After each test (its fixtures' teardown done), Qt deletes every top-level widget, while every Python
    wrapper is still alive. Left to the garbage collector, a window is destroyed whenever a collection finds
    its cycle, and Qt then calls Python code (event filters, slots) of objects the collector is freeing: CI
    workers died of it in pytest-qt's event processing, tests after the one that left the window.

    Once a QApplication exists, cyclic garbage is collected on this (the Qt) thread only, as the desktop does
    (``desktop/main_thread_gc.py``): during a test whenever Qt runs its events, and after each test. A CI worker
    died in a test that only started a web server thread, whose allocations set off a collection there."""
    app = QApplication.instance()
    if app is not None and not _collector:
        _collector.append(MainThreadCollector(app))
    yield
    if app is None and (app := QApplication.instance()) is None:
        return
    for widget in QApplication.topLevelWidgets():
        widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    if not _collector:
        _collector.append(MainThreadCollector(app))
    collect_due()
