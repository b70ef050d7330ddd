"""The application-wide key watch outlives nothing it should not: an owner dropped without ``stop`` takes the
watch with it at the next event, and events after a garbage collection go through safely (a freed filter
still installed crashed the test suite in a QLabel's constructor)."""

from __future__ import annotations

import gc

import shiboken6
from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QLabel, QLineEdit

from desktop.focus_guard import KeyWatch


class Owner(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.presses = 0
        self.keys = KeyWatch(lambda _window: False, owner=self)
        self.keys.typed.connect(self._typed)

    def _typed(self) -> None:
        self.presses += 1


def test_a_key_press_anywhere_is_reported(qtbot):
    owner = Owner()
    box = QLineEdit()
    qtbot.addWidget(box)
    qtbot.keyClick(box, Qt.Key.Key_A)
    assert owner.presses >= 1
    owner.keys.stop()


def test_an_owner_dropped_without_stop_takes_its_watch_out_at_the_next_event(qtbot):
    owner = Owner()
    watch = owner.keys
    del owner
    gc.collect()
    label = QLabel("after the collection")  # its construction goes through the application's filters
    qtbot.addWidget(label)
    box = QLineEdit()
    qtbot.addWidget(box)
    qtbot.keyClick(box, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: not shiboken6.isValid(watch), timeout=5000)  # deleteLater ran


def test_stop_twice_is_harmless(qtbot):
    owner = Owner()
    owner.keys.stop()
    owner.keys.stop()
    box = QLineEdit()
    qtbot.addWidget(box)
    qtbot.keyClick(box, Qt.Key.Key_A)
    assert owner.presses == 0
