"""Quitting the attached desktop and starting it again, as a user does, over one real kernel process.

Two defects of the attached path (issue 22): a reply that streamed while no desktop was attached came
back cut short in its reopened Ask window (the ledger held it whole), and the Ask windows open at quit
never reopened, because attaching neither saved nor restored them. pytest-qt drives ``attach_desktop``
in this process; the kernel is its own process with the real Anthropic SDK against the loopback fake,
which holds the reply after its first words until the test lets it go. Waits are on observable state.
"""

from __future__ import annotations

import threading

from desktop.widgets.markdown_block import MarkdownBlock
from kernel.api import AgentState, LedgerFilter
from tests.fakes import Text, Turn

from .attached import open_desktop, quit_desktop, workspace

WAIT_MS = 60_000
REPLY = " ".join(f"word{i}" for i in range(200))  # long enough to stream in many pieces


def replies(window) -> list[str]:
    return [b.raw for b in window.transcript.widget().findChildren(MarkdownBlock) if b.speaker != "You"]


def test_a_reply_that_streamed_while_the_desktop_was_closed_reopens_whole(kernel_proc, srv, tmp_path, qloop, qtbot):
    release = threading.Event()
    srv.hold_after_first_text(release, timeout=60).script(Turn(parts=(Text(REPLY, chunks=40),)))
    desk = open_desktop(kernel_proc.home, qtbot)
    agent = desk.kernel.agents.spawn("scribe", workspace=str(workspace(tmp_path)))
    ask = desk.window.window_for(agent.id)
    ask.input.setPlainText("write me a long answer")
    ask.send()
    qtbot.waitUntil(lambda: any(text.startswith("word0") for text in replies(ask)), timeout=WAIT_MS)  # mid-reply
    quit_desktop(desk, qtbot)  # agents keep running in the kernel

    desk = open_desktop(kernel_proc.home, qtbot)  # back while the reply is still streaming
    try:
        ask = desk.window.window_for(agent.id)
        assert desk.kernel.agents.get(agent.id).state is AgentState.RUNNING
        release.set()  # the rest of the reply streams into the reopened window
        qtbot.waitUntil(lambda: desk.kernel.agents.get(agent.id).state is AgentState.IDLE, timeout=WAIT_MS)
        [said] = [e for e in desk.kernel.ledger.page(LedgerFilter(actor=agent.id)) if e.kind == "request"]
        assert said.text == REPLY  # the record holds it whole
        qtbot.waitUntil(lambda: not ask.transcript.pending and replies(ask)[-1:] != [] and replies(ask)[-1].endswith("word199"),
                        timeout=WAIT_MS)
        assert replies(ask) == [REPLY]  # and so does the window: what streamed while it was closed too
    finally:
        quit_desktop(desk, qtbot)


def test_the_ask_windows_open_at_quit_open_again_when_the_desktop_attaches(kernel_proc, srv, tmp_path, qloop, qtbot):
    ws = str(workspace(tmp_path))
    desk = open_desktop(kernel_proc.home, qtbot)
    kept, closed, other = (desk.kernel.agents.spawn(name, workspace=ws) for name in ("kept", "closed", "other"))
    desk.window.window_for(kept.id)
    desk.window.window_for(closed.id).close()  # closed by the user before quitting: stays closed
    quit_desktop(desk, qtbot)

    desk = open_desktop(kernel_proc.home, qtbot)
    try:
        assert set(desk.window.windows) == {kept.id}
        reopened = desk.window.windows[kept.id]
        assert reopened.isVisible() and reopened.windowTitle() == f"kept \u00b7 {kept.id}"
        assert other.id not in desk.window.windows
    finally:
        quit_desktop(desk, qtbot)
