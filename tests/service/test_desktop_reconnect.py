"""A desktop attached to a real kernel process that is killed and started again under it.

pytest-qt drives the desktop in this process (qasync); the kernel is its own
process with the real Anthropic SDK against the loopback fake. While the
kernel is down the record changes (an agent is archived), so the reconnected
desktop must reload the process table, not patch it: the archived agent goes,
the working one shows ``interrupted``, its open Ask window says so and its
transcript continues when it is resumed. Waiting is on observable state.
"""

from __future__ import annotations


from PySide6.QtWidgets import QLabel

from desktop.widgets.markdown_block import MarkdownBlock
from kernel.api import AgentState, TextDelta
from ledger import USER, AgentArchive, Ledger
from tests.fakes import Text, Turn

from .attached import open_desktop, quit_desktop

WAIT_MS = 60_000


def test_the_desktop_shows_the_restarted_kernels_agents_as_they_are_now(kernel_proc, srv, tmp_path, qloop, qtbot):
    ws = tmp_path / "ws"
    ws.mkdir()
    srv.script(Turn(parts=(Text("all done"),)),
               Turn(parts=(Text("a long answer " * 40, chunks=40),), delay=0.05),
               Turn(parts=(Text("after the restart"),)))
    desk = open_desktop(kernel_proc.home, qtbot, WAIT_MS)
    window, kernel = desk.window, desk.kernel
    links: list[bool] = []
    deltas: list[TextDelta] = []
    kernel.on_connection(links.append)
    kernel.subscribe(lambda e: deltas.append(e) if isinstance(e, TextDelta) else None)
    try:
        done = kernel.agents.spawn("finished", workspace=str(ws))
        kernel.agents.send(done.id, "hi")
        qtbot.waitUntil(lambda: _state(window, done.id) is AgentState.IDLE, timeout=WAIT_MS)
        worker = kernel.agents.spawn("worker", workspace=str(ws))
        ask = window.window_for(worker.id)
        kernel.agents.send(worker.id, "talk")
        qtbot.waitUntil(lambda: any(d.agent_id == worker.id for d in deltas), timeout=WAIT_MS)  # mid-turn
        assert _state(window, worker.id) is AgentState.RUNNING

        kernel_proc.kill9()
        qtbot.waitUntil(lambda: links == [False], timeout=WAIT_MS)
        assert "kernel detached" in window.status.counts.footer()
        with Ledger(kernel_proc.home / "ledger.db") as ledger:  # the record changes while no kernel runs
            ledger.append(AgentArchive(actor=USER, subject=done.id))
        kernel_proc.start()
        qtbot.waitUntil(lambda: links == [False, True], timeout=WAIT_MS)

        assert [a.id for a in window.rows.agents] == [worker.id]  # reloaded: the archived agent is gone
        assert window.processes.rowCount() == 1
        assert _state(window, worker.id) is AgentState.INTERRUPTED
        counts = window.status.counts
        assert "kernel attached" in counts.footer() and counts.in_state(AgentState.RUNNING) == 0
        assert counts.in_state(AgentState.INTERRUPTED) == 1
        assert ask.info.state is AgentState.INTERRUPTED and ask.pause_button.text() == "Resume"
        assert any("The kernel stopped while worker worked" in label.text()
                   for label in ask.transcript.widget().findChildren(QLabel))

        ask.toggle_pause()  # Resume: the same window carries on with the same agent
        qtbot.waitUntil(lambda: _state(window, worker.id) is AgentState.IDLE, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not ask.transcript.pending, timeout=WAIT_MS)
        replies = [b.raw for b in ask.transcript.widget().findChildren(MarkdownBlock)]
        assert replies[-1] == "after the restart"
        assert len(srv.requests) == 3  # the restart itself asked the model nothing
    finally:
        for dialog in list(desk.lease_dialogs.open.values()):
            dialog.withdraw()
        quit_desktop(desk, qtbot, WAIT_MS)


def _state(window, agent_id: str) -> AgentState | None:
    row = window.rows.row_of(agent_id)
    return None if row is None else window.rows.agents[row].state
