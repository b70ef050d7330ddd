"""While the kernel is down the desktop says "kernel detached", offers nothing that cannot work, and clears it
all when the kernel is back (issue 23).

The desktop starts the kernel itself, as ``agentdesk`` does when none runs (``attach_desktop`` →
``ensure_kernel``): the kernel is then its child. The test kills it with SIGKILL mid-reply and checks what
a person sees: the status line, the process table (no "running", no live Kill button), the working agent's
Ask window header, an unrelated Ask window that tried to send (it keeps what was typed), the Automations
window (one sentence, no NotRunning traceback on every tick: pytest-qt fails the test on an exception in a
Qt slot). The dead kernel is reaped (no zombie under the desktop). Another kernel is started; the desktop
reattaches by itself and nothing of "kernel detached" stays; the cut request's tokens, reported at the
start of its stream, are on the record (the agent's tokens do not drop to 0). Waiting is on observable
state only.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from PySide6.QtCore import Qt

from desktop.process_model import COL_KILL, COL_STATE
from kernel.api import LedgerFilter, TextDelta, UsageUpdated
from kernel.config.settings import Settings, SettingsStore
from kernel.service.spawn import ensure_kernel, reaper
from tests.fakes import Text, Turn, Usage
from tests.home_kernel import stop_home_kernel

from .attached import open_desktop, quit_desktop

WAIT_MS = 60_000
INPUT = 4321  # the input tokens the fake server reports at the start of the cut stream (message_start)


def _state_text(window, agent_id: str) -> str:
    model = window.processes
    return model.data(model.index(window.rows.row_of(agent_id), COL_STATE))


def _kill_text(window, agent_id: str) -> str:
    model = window.processes
    return model.data(model.index(window.rows.row_of(agent_id), COL_KILL))


def test_a_dead_kernel_shows_as_detached_everywhere_is_reaped_and_its_cut_request_keeps_its_tokens(
        srv, agentdesk_home, tmp_path, qloop, qtbot, monkeypatch):
    home: Path = agentdesk_home
    ws = tmp_path / "ws"
    ws.mkdir()
    SettingsStore(home).save(Settings(user_name="tester", workspace=str(ws)))
    for name in [k for k in os.environ if k.startswith(("ANTHROPIC", "OPENAI", "GEMINI", "GOOGLE"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", srv.anthropic_base_url)  # the kernel this test's desktop starts
    srv.script(Turn(parts=(Text("a long answer " * 60, chunks=60),), delay=0.2, usage=Usage(INPUT, 900)))
    desk = open_desktop(home, qtbot, WAIT_MS)  # no kernel runs: the desktop starts one, its child
    window, kernel = desk.window, desk.kernel
    pid = kernel.kernel_pid
    assert pid is not None and reaper(pid) is not None
    links: list[bool] = []
    seen: list[object] = []
    kernel.on_connection(links.append)
    kernel.subscribe(seen.append)
    try:
        worker = kernel.agents.spawn("worker", workspace=str(ws))
        other = kernel.agents.spawn("other", workspace=str(ws))
        ask, other_ask = window.window_for(worker.id), window.window_for(other.id)
        automations = window.open_automations()
        kernel.agents.send(worker.id, "talk")
        qtbot.waitUntil(lambda: any(isinstance(e, TextDelta) and e.agent_id == worker.id for e in seen)
                        and any(isinstance(e, UsageUpdated) and e.agent.input_tokens == INPUT for e in seen),
                        timeout=WAIT_MS)  # mid-reply, its input tokens reported
        assert _state_text(window, worker.id).endswith("running") and _kill_text(window, worker.id) == "Kill"

        os.kill(pid, signal.SIGKILL)
        qtbot.waitUntil(lambda: links == [False], timeout=WAIT_MS)
        reaper(pid).join(30)  # the desktop waited for its dead child: no zombie stays
        assert not Path(f"/proc/{pid}").exists()

        assert "kernel detached" in window.status.headline.text() and "running" not in window.status.headline.text()
        for agent in (worker.id, other.id):
            assert _state_text(window, agent) == "kernel detached" and _kill_text(window, agent) == ""
        assert "kernel detached" in ask.state_badge.text()
        assert not ask.stop_button.isEnabled() and not ask.pause_button.isEnabled()
        other_ask.input.setPlainText("a follow-up typed while the kernel is away")
        qtbot.mouseClick(other_ask.send_button, Qt.MouseButton.LeftButton)  # off: nothing is sent, nothing lost
        assert not other_ask.send_button.isEnabled()
        assert other_ask.input.toPlainText() == "a follow-up typed while the kernel is away"
        assert "not reachable" in other_ask.status_label.text()
        for _ in range(3):
            automations.reload()  # the tick's reload: no NotRunning raised into Qt
        assert automations.detached_label.isVisibleTo(automations)
        assert not automations.buttons["new"].isEnabled()
        assert automations.open_run() is None  # Enter on a run while detached: nothing to ask, no traceback

        starting = asyncio.ensure_future(asyncio.to_thread(ensure_kernel, home))  # another kernel, as a user would
        qtbot.waitUntil(lambda: links == [False, True] and starting.done(), timeout=WAIT_MS)
        assert starting.result() is True

        headline = window.status.headline.text()
        assert "detached" not in headline and "kernel attached" in window.status.counts.footer()
        assert _state_text(window, worker.id).endswith("interrupted") and _kill_text(window, worker.id) == "Kill"
        assert _state_text(window, other.id).endswith("idle")
        assert "interrupted" in ask.state_badge.text() and ask.stop_button.isEnabled()
        assert other_ask.status_label.text() == "" and other_ask.send_button.isEnabled()
        assert other_ask.input.toPlainText() == "a follow-up typed while the kernel is away"
        assert not automations.detached_label.isVisibleTo(automations) and automations.buttons["new"].isEnabled()

        info = kernel.agents.get(worker.id)  # the cut request is on the record with the tokens it had
        assert info.input_tokens == INPUT and ask.info.used >= INPUT
        [cut] = kernel.ledger.page(LedgerFilter(actor=worker.id, kind="request"))
        assert cut.status == "cancelled" and cut.input_tokens == INPUT and "kernel stopped" in cut.error
        assert kernel.agents.spend_today().tokens >= INPUT
    finally:
        for dialog in list(desk.lease_dialogs.open.values()):
            dialog.withdraw()
        quit_desktop(desk, qtbot, WAIT_MS)
        # the kernel started after the kill stops with the test (quitting closed this client: the kernel runs on,
        # as a user's does)
        stop_home_kernel(home)
        closing = asyncio.ensure_future(kernel.aclose())
        qtbot.waitUntil(closing.done, timeout=WAIT_MS)
