"""A clean stop (``agentdesk kernel --stop``, SIGTERM) interrupts working agents; it never kills them.

Real kernel processes, the real Anthropic SDK against the loopback fake;
waiting is on events and process exits only. After the restart the agent is
``interrupted`` with its conversation, its lease is still live, no
``agent.kill`` is on the record and nothing was asked or run twice.
"""

from __future__ import annotations

import asyncio
import subprocess

from kernel.api import AgentStateChanged, LedgerFilter, TextDelta, ToolCallStarted
from tests.fakes import Text, ToolCall as FakeCall, Turn

from .conftest import ROOT, agentdesk
from .test_kernel_process import _texts, attach, next_event, run


async def _stopped_then_back(kernel_proc, k, events, connection, stop) -> AgentStateChanged:
    """Stop the kernel with ``stop()``, see the agent go interrupted before it ends, start it again."""
    await asyncio.to_thread(stop)  # blocking: a process to run, or one to wait for
    interrupted = await next_event(events, AgentStateChanged, lambda e: e.agent.state == "interrupted")
    assert await connection.get() is False
    assert kernel_proc.proc.wait(timeout=30) == 0  # a clean exit
    kernel_proc.start()
    assert await connection.get() is True
    return interrupted


async def _working_agent(kernel_proc, ws, scope: str, prompt: str, until: type):
    """An attached client (with its connection changes queued) and an agent of it working: ``until`` seen."""
    k, events = await attach(kernel_proc.home)
    connection: asyncio.Queue = asyncio.Queue()
    k.on_connection(connection.put_nowait)
    agent = k.spawn("stopped", workspace=str(ws))
    k.grant_lease(agent.id, scope, 3600)
    k.send(agent.id, prompt)
    await next_event(events, until)
    return k, events, connection, agent


def test_kernel_stop_mid_turn_leaves_the_agent_interrupted_with_its_conversation(kernel_proc, kernel_env, srv,
                                                                                tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    srv.script(Turn(parts=(Text("a long answer " * 40, chunks=40),), delay=0.05))

    def stop() -> None:
        done = subprocess.run(agentdesk("kernel", "--stop"), env=kernel_env, cwd=ROOT, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, done.stderr

    async def body():
        k, events, connection, agent = await _working_agent(kernel_proc, ws, "fs.read", "talk", TextDelta)  # mid-turn
        try:
            said = await _stopped_then_back(kernel_proc, k, events, connection, stop)
            kills = k.ledger_page(LedgerFilter(kind="agent.kill"))
            requests = [e for e in k.ledger_page(LedgerFilter(actor=agent.id, kind="request"))]
            return said, k.agent(agent.id), k.conversation(agent.id), k.leases(agent.id), kills, requests
        finally:
            await k.aclose()

    said, back, conversation, leases, kills, requests = run(body())
    assert said.agent.reason == "the kernel stopped"
    assert back.state == "interrupted" and "the kernel stopped" in back.reason
    assert "talk" in _texts(conversation)
    assert [lease.scope for lease in leases] == ["fs.read"]  # restored as after a kill -9: still live
    assert kills == []  # a clean stop records no kill
    assert [r.status for r in requests] == ["cancelled"]
    assert len(srv.requests) == 1  # the restart asked the model nothing


def test_sigterm_mid_tool_call_interrupts_it_and_runs_nothing_twice(kernel_proc, srv, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    command = "sleep 60; echo ran >> once.txt"
    srv.script(Turn(parts=(FakeCall("shell_exec", {"command": command}),)))

    async def body():
        k, events, connection, agent = await _working_agent(kernel_proc, ws, "shell.exec", "run it",
                                                            ToolCallStarted)  # mid-tool-call
        try:
            await _stopped_then_back(kernel_proc, k, events, connection, kernel_proc.stop)
            calls = [e for e in k.ledger_page(LedgerFilter(actor=agent.id)) if e.kind in ("tool", "error", "result")]
            requests = k.ledger_page(LedgerFilter(actor=agent.id, kind="request"))
            return k.agent(agent.id), calls, k.leases(agent.id), k.ledger_page(LedgerFilter(kind="agent.kill")), requests
        finally:
            await k.aclose()

    back, calls, leases, kills, requests = run(body())
    [request] = requests  # the reply with the call, on the record with the provider's request id
    assert (request.status, request.request_id) == ("ok", srv.request_ids[0])
    assert back.state == "interrupted"
    assert sorted(e.kind for e in calls) == ["error", "tool"]  # answered once, as interrupted
    [error] = [e for e in calls if e.kind == "error"]
    assert error.message == "interrupted: the kernel stopped"
    assert [lease.scope for lease in leases] == ["shell.exec"] and kills == []
    assert not (ws / "once.txt").exists()
    assert len(srv.requests) == 1
