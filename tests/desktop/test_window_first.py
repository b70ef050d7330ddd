"""The window first (issue 28): ``agentdesk`` shows its main window before any kernel answers, says it is
connecting, and a New Ask typed and sent meanwhile reaches a new agent exactly once when the kernel does.

The kernel here is a real ``agentdesk kernel`` process, started by the test only after the user has typed
(the desktop's ``ensure`` waits for it, as ``ensure_kernel`` waits for a kernel it started); offscreen Qt."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import Qt

from desktop.app import open_window_first
from desktop.main_window import MainWindow
from desktop.pending_ask import QUEUED
from kernel.api import KernelError, LedgerFilter
from kernel.config.settings import Settings, SettingsStore
from tests.fakes import Text, Turn
from tests.service.attached import WAIT_MS, AttachedKernel, quit_desktop


def test_a_task_typed_while_attaching_is_sent_once_when_the_kernel_answers(
        tmp_path: Path, qloop: qasync.QEventLoop, qtbot) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir(mode=0o700)
    ws.mkdir()
    settings = Settings(user_name="Ada", workspace=str(ws))
    SettingsStore(home).save(settings)
    kernel_up = threading.Event()
    frame = MainWindow.first_frame()  # as ``agentdesk`` does: the window shown before its contents are built
    frame.show()
    desk, starter = open_window_first(home, grant_delay_ms=0, ensure=lambda _root: kernel_up.wait(WAIT_MS / 1000),
                                      window=frame)
    kernel = None
    try:
        assert desk.window is frame and frame.isVisible()
        desk.window.show()
        starter.begin()
        qtbot.waitExposed(desk.window)
        assert "connecting to the kernel\u2026" in desk.window.status.footer.text()
        assert desk.window.rows.agents == [] and not starter.attached
        with pytest.raises(KernelError, match="connecting"):
            desk.kernel.agents.spawn()  # nothing that changes anything happens before the kernel answers

        desk.window.new_action.trigger()  # Ctrl+N / "+ New Ask" while attaching
        [pending] = starter.pending_windows
        qtbot.waitExposed(pending)
        qtbot.keyClicks(pending.input, "tidy the notes folder")
        qtbot.keyClick(pending.input, Qt.Key.Key_Return)
        qtbot.keyClick(pending.input, Qt.Key.Key_Return)  # a second Enter sends nothing more
        pending.send_button.click()
        assert pending.note.text() == QUEUED and len(starter.asks) == 1

        kernel = AttachedKernel(home, settings)  # only now does a kernel serve this home
        kernel.srv.script(Turn(parts=(Text("done"),)))
        kernel_up.set()
        qtbot.waitUntil(lambda: starter.attached and not starter.asks, timeout=WAIT_MS)
        [agent] = desk.kernel.agents.list()
        qtbot.waitUntil(lambda: desk.kernel.agents.get(agent.id).state == "idle", timeout=WAIT_MS)
        messages = desk.kernel.ledger.page(LedgerFilter(kind="message"))
        assert [(m.actor, m.text) for m in messages] == [(agent.id, "tidy the notes folder")]  # once
        assert len(kernel.srv.requests) == 1
        assert agent.id in desk.window.windows  # its Ask window took the waiting one's place
        qtbot.waitUntil(lambda: "kernel attached" in desk.window.status.footer.text(), timeout=WAIT_MS)
    finally:
        kernel_up.set()
        quit_desktop(desk, qtbot)
        if kernel is not None:
            kernel.close()


FIRST_FRAME = r"""
import sys
from desktop.app import make_app
app = make_app([])
from desktop.main_window import MainWindow
frame = MainWindow.first_frame()
frame.show()
print(frame.isVisible(), frame.windowTitle(), sorted(sys.modules))
"""


def test_the_main_window_is_shown_before_the_kernel_client_and_the_views_are_imported(tmp_path: Path) -> None:
    """``agentdesk`` maps its main window first: up to ``show`` it imports Qt and a few light modules, not
    asyncio, the kernel's events and ledger entries, its client or the views (~0.27 s of CPU, start_bench)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "AGENTDESK_HOME": str(tmp_path),
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-c", FIRST_FRAME], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    visible, title, modules = done.stdout.split(" ", 2)
    assert (visible, title) == ("True", "Agentdesk")
    for heavy in ("asyncio", "qasync", "kernel.core.events", "ledger.entries", "kernel.service", "kernel.config.settings",
                  "desktop.bridge", "desktop.process_view", "desktop.ledger_view", "desktop.status",
                  "desktop.lease_dialog"):
        assert f"'{heavy}'" not in modules, heavy
