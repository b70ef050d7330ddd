"""A clean shutdown (``Kernel.interrupt_working``, what ``agentdesk kernel --stop`` and SIGTERM do):
working agents stop ``interrupted``, never killed; their leases stay; automation runs end
``interrupted`` and are not run again for their slot. (Real kernel processes: tests/service/test_clean_stop.py.)"""

from __future__ import annotations

import asyncio

from kernel.agents.rebuild import INTERRUPTED, KERNEL_STOPPED
from kernel.core.events import AgentState
from kernel.providers.base import StreamEnd, TextChunk, UsageReport
from kernel.providers.scripted import Hold, ScriptedProvider, ScriptedTurn, reply
from kernel.tools.registry import builtin_registry
from ledger import Ledger, ToolError

from .conftest import HANG, run, until
from .test_automations import T0, hourly, runs
from .test_durable import restarted
from .test_processes import gated_tool


def test_working_agents_are_interrupted_with_their_leases_and_nothing_runs_twice(make_env):
    gate, started = asyncio.Event(), asyncio.Event()
    hold, reached = asyncio.Event(), asyncio.Event()
    env = make_env(tools=builtin_registry(extra=(gated_tool(gate, started),)))
    env.provider.script(
        ScriptedTurn((UsageReport(5, 0), TextChunk("half"), Hold(hold, reached), StreamEnd("end_turn"))),
        reply(tools=(("wait_gate", {}),)),
        reply(tools=(("fs_write", {"path": "x.txt", "content": "x"}),)),
    )
    env.approver.will(HANG)
    streamer, tooler, asker, idle = (env.kernel.agents.spawn(n) for n in ("streamer", "tooler", "asker", "idle"))
    env.kernel.leases.grant(tooler.id, "test.wait", 600)

    async def go():
        env.kernel.agents.send(streamer.id, "stream")
        await reached.wait()
        env.kernel.agents.send(tooler.id, "run the gate")
        await started.wait()
        env.kernel.agents.send(asker.id, "write x")
        await until(lambda: env.kernel.agents.get(asker.id).state is AgentState.WAITING)
        stopped = await env.kernel.interrupt_working()
        await env.kernel.aclose()
        return stopped

    stopped = run(go())
    assert sorted(a.id for a in stopped) == sorted((streamer.id, tooler.id, asker.id))
    for agent in (streamer, tooler, asker):
        info = env.kernel.agents.get(agent.id)
        assert (info.state, info.reason) == (AgentState.INTERRUPTED, KERNEL_STOPPED)
    assert env.kernel.agents.get(idle.id).state is AgentState.IDLE
    assert env.ledger.page(kind="agent.kill") == [] and env.ledger.page(kind="lease.revoke") == []
    [cut] = [e for e in env.ledger.page(kind="error") if isinstance(e, ToolError)]
    assert cut.message == INTERRUPTED and cut.actor == tooler.id  # the call that had started
    assert not (env.workspace / "x.txt").exists()

    again = restarted(env, ScriptedProvider().script(reply("carried on")))
    assert {a.id: a.state for a in again.agents.list()} == {
        streamer.id: AgentState.INTERRUPTED, tooler.id: AgentState.INTERRUPTED, asker.id: AgentState.INTERRUPTED,
        idle.id: AgentState.IDLE}
    assert [lease.scope for lease in again.leases.list(tooler.id)] == ["test.wait"]  # live, as after a kill -9
    assert "stream" in again.agents.conversation(streamer.id)[-1].text


def test_an_automation_run_stopped_by_a_clean_shutdown_is_interrupted_and_not_run_again(make_env):
    env = make_env()
    env.clock.advance(T0 - env.clock.now())
    a = hourly(env)
    gate, reached = asyncio.Event(), asyncio.Event()
    env.provider.script(ScriptedTurn((UsageReport(1, 0), Hold(gate, reached), StreamEnd("end_turn"))))

    async def go():
        env.kernel.automations.start()
        env.kernel.automations.run_now(a.id)
        await reached.wait()
        await env.kernel.interrupt_working()
        await env.kernel.aclose()

    run(go())
    [record] = runs(env, a)
    assert record.outcome == "interrupted" and "not run again" in record.detail
    assert env.ledger.page(kind="agent.kill") == []

    async def after():  # a kernel started later neither re-runs the slot nor re-marks it
        ledger = Ledger(env.ledger.path, clock=env.clock.now)
        kernel = restarted(env, ScriptedProvider(), ledger=ledger)
        try:
            assert kernel.automations.scheduler.recover() == []  # nothing left unfinished to mark
            return kernel.automations.runs(a.id)
        finally:
            await kernel.aclose()
            ledger.close()

    assert [r.outcome for r in run(after())] == ["interrupted"]
