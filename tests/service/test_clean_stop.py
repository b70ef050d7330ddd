"""A clean stop (``agentdesk kernel --stop``, SIGTERM) interrupts working agents; it never kills them.

Real kernel processes, the real Anthropic SDK against the loopback fake;
waiting is on events and process exits only. After the restart the agent is
``interrupted`` with its conversation, its lease is still live, no
``agent.kill`` is on the record and nothing was asked or run twice.
"""

from __future__ import annotations

import asyncio

from kernel.api import AgentStateChanged, LedgerFilter, TextDelta, ToolCallStarted
from tests.fakes import Text, Turn

from .attached import calls_of, cli, next_event, run, script_slow_once, texts, workspace, working_agent


async def _stopped_then_back(kernel_proc, k, events, connection, stop) -> AgentStateChanged:
    """Stop the kernel with ``stop()``, see the agent go interrupted before it ends, start it again."""
    await asyncio.to_thread(stop)  # blocking: a process to run, or one to wait for
    interrupted = await next_event(events, AgentStateChanged, lambda e: e.agent.state == "interrupted")
    assert await connection.get() is False
    assert kernel_proc.proc.wait(timeout=30) == 0  # a clean exit
    kernel_proc.start()
    assert await connection.get() is True
    return interrupted


def test_kernel_stop_mid_turn_leaves_the_agent_interrupted_with_its_conversation(kernel_proc, kernel_env, srv,
                                                                                tmp_path):
    ws = workspace(tmp_path)
    srv.script(Turn(parts=(Text("a long answer " * 40, chunks=40),), delay=0.05))

    def stop() -> None:
        done = cli(kernel_env, "kernel", "--stop")
        assert done.returncode == 0, done.stderr

    async def body():
        k, events, connection, agent = await working_agent(kernel_proc, ws, "talk", TextDelta,  # mid-turn
                                                           scope="fs.read")
        try:
            said = await _stopped_then_back(kernel_proc, k, events, connection, stop)
            kills = k.ledger.page(LedgerFilter(kind="agent.kill"))
            requests = [e for e in k.ledger.page(LedgerFilter(actor=agent.id, kind="request"))]
            return said, k.agents.get(agent.id), k.agents.conversation(agent.id), k.leases.list(agent.id), kills, requests
        finally:
            await k.aclose()

    said, back, conversation, leases, kills, requests = run(body())
    assert said.agent.reason == "the kernel stopped"
    assert back.state == "interrupted" and "the kernel stopped" in back.reason
    assert "talk" in texts(conversation)
    assert [lease.scope for lease in leases] == ["fs.read"]  # restored as after a kill -9: still live
    assert kills == []  # a clean stop records no kill
    assert [r.status for r in requests] == ["cancelled"]
    assert len(srv.requests) == 1  # the restart asked the model nothing


def test_sigterm_mid_tool_call_interrupts_it_and_runs_nothing_twice(kernel_proc, srv, tmp_path):
    ws = workspace(tmp_path)
    script_slow_once(srv)

    async def body():
        k, events, connection, agent = await working_agent(kernel_proc, ws, "run it", ToolCallStarted,
                                                           scope="shell.exec")  # mid-tool-call
        try:
            await _stopped_then_back(kernel_proc, k, events, connection, kernel_proc.stop)
            calls = calls_of(k, agent.id)
            requests = k.ledger.page(LedgerFilter(actor=agent.id, kind="request"))
            return k.agents.get(agent.id), calls, k.leases.list(agent.id), k.ledger.page(LedgerFilter(kind="agent.kill")), requests
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
