"""Keyboard scenarios under a real X server and window manager, run by ``test_real_window_manager.py``.

Not collected by the suite (the name does not start with ``test_``): each
scenario runs in a child pytest with ``QT_QPA_PLATFORM=xcb`` on the Xvfb +
openbox display the parent started (``x11.XSession``), with the desktop
attached to a kernel process (``main``) and the real grant delay. The keys
are real X key events from ``xdotool``; every wait is for observable state.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from PySide6.QtWidgets import QApplication

from desktop.lease_dialog import GRANT_DELAY_MS, LeaseDialog
from kernel.core.events import LeaseGranted, LeaseRequestResolved
from kernel.providers.scripted import reply

from tests.desktop.x11 import xdotool

if os.environ.get("QT_QPA_PLATFORM") != "xcb" or not os.environ.get("DISPLAY"):
    pytest.skip("run by test_real_window_manager.py on its own X display", allow_module_level=True)

DISPLAY = os.environ["DISPLAY"]
WAIT_MS = 60_000


def key(*keys: str) -> None:
    xdotool(DISPLAY, "key", "--clearmodifiers", *keys)


def _active(main, widget) -> None:
    main.until(lambda: QApplication.activeWindow() is widget, timeout=WAIT_MS)


def _typing_in_the_path_filter(main):
    """The main window active at 1024×700 with the keyboard in the ledger's path filter; the real grant delay."""
    main.desk.lease_dialogs.grant_delay_ms = GRANT_DELAY_MS
    window = main.window
    window.raise_()
    window.activateWindow()
    _active(main, window)
    path = window.ledger_view.path
    path.setFocus()
    main.until(lambda: QApplication.focusWidget() is path)
    return path


def _shown_dialogs() -> list[LeaseDialog]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, LeaseDialog) and w.isVisible()]


def _granted(main) -> list:
    return [e for e in main.events if isinstance(e, LeaseGranted)]


def _ask_to_write(main, name: str, then: str):
    agent = main.spawn(name)
    main.provider(agent).script(reply(tools=(("fs_write", {"path": f"{name}.md", "content": "x\n"}),)), reply(then))
    main.kernel.agents.send(agent, f"write {name}.md")
    main.until(lambda: main.desk.lease_dialogs.request_for(agent) is not None, timeout=WAIT_MS)
    return agent


def _bring_up(main, agent):
    """Ctrl+Shift+A, as a person presses it; the dialog comes up with the keyboard on the Settings default."""
    key("ctrl+shift+a")
    main.until(lambda: main.desk.lease_dialogs.dialog_for(agent) is not None, timeout=WAIT_MS)
    dialog = main.desk.lease_dialogs.dialog_for(agent)
    _active(main, dialog)
    assert dialog.focusWidget() is dialog.default_button
    main.until(lambda: dialog.armed, timeout=WAIT_MS)  # the real delay, waited for by its effect
    return dialog


def _tab_to(main, dialog, button) -> None:
    for _ in range(10):
        if dialog.focusWidget() is button:
            return
        before = dialog.focusWidget()
        key("Tab")
        main.until(lambda: dialog.focusWidget() is not before, timeout=WAIT_MS)
    raise AssertionError(f"Tab never reached {button.text()}")


def test_three_background_requests_while_typing_take_nothing(main):
    path = _typing_in_the_path_filter(main)
    agents = [main.spawn(name) for name in ("scribe", "tester", "docs")]
    main.server.script(*(reply(tools=(("fs_write", {"path": f"{n}.md", "content": "x\n"}),))
                         for n in ("scribe", "tester", "docs")))
    env = {**os.environ, "DISPLAY": DISPLAY}
    typist = subprocess.Popen(["xdotool", "type", "--delay", "40", "notes/projects/"], env=env)
    for agent in agents:  # three agents with no open window ask at about the same moment
        main.kernel.agents.send(agent, "write")
    main.until(lambda: typist.poll() is not None, timeout=WAIT_MS)
    assert typist.returncode == 0
    dialogs = main.desk.lease_dialogs
    main.until(lambda: all(dialogs.request_for(a) is not None for a in agents), timeout=WAIT_MS)
    key("a", "l", "p", "h", "a", "space")  # still typing as the requests land
    key("Return")  # the Enter that used to grant
    main.until(lambda: path.text() == "notes/projects/alpha ", timeout=WAIT_MS)
    main.settle()
    assert QApplication.activeWindow() is main.window and QApplication.focusWidget() is path
    assert _shown_dialogs() == [] and not any(w.isVisible() for w in main.window.windows.values())
    assert _granted(main) == [] and len(main.kernel.leases.pending()) == 3
    assert "waits for a fs.write lease (and 2 more requests)" in main.window.statusBar().currentMessage()


def test_tab_to_deny_and_enter_denies(main):
    path = _typing_in_the_path_filter(main)
    agent = _ask_to_write(main, "scribe", "Understood, not writing.")
    assert QApplication.activeWindow() is main.window and _shown_dialogs() == []
    dialog = _bring_up(main, agent)
    _tab_to(main, dialog, dialog.deny_button)
    key("Return")
    main.until(lambda: main.kernel.agents.get(agent).state == "idle", timeout=WAIT_MS)
    outcomes = [e.outcome for e in main.events if isinstance(e, LeaseRequestResolved)]
    assert outcomes == ["denied"] and _granted(main) == []
    _active(main, main.window)  # the keyboard is back where the user was typing
    main.until(lambda: QApplication.focusWidget() is path, timeout=WAIT_MS)


def test_tab_to_one_hour_and_enter_grants_one_hour(main):
    path = _typing_in_the_path_filter(main)
    agent = _ask_to_write(main, "scribe", "Written.")
    dialog = _bring_up(main, agent)
    _tab_to(main, dialog, dialog.grant_buttons[3600.0])
    granted_from = main.kernel.now()
    key("Return")
    main.until(lambda: main.kernel.agents.get(agent).state == "idle", timeout=WAIT_MS)
    [granted] = _granted(main)
    assert granted_from + 3600 <= granted.lease.until <= main.kernel.now() + 3600
    _active(main, main.window)
    main.until(lambda: QApplication.focusWidget() is path, timeout=WAIT_MS)
    key("x")
    main.until(lambda: path.text() == "x", timeout=WAIT_MS)  # and it types there
