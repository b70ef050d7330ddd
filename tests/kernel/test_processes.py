"""The process table: kill (while streaming, in a tool, with a request open), budgets, parallel agents."""

from __future__ import annotations

import asyncio

from kernel.leases.approver import Grant
from kernel.core.events import AgentKilled, AgentState, LeaseRevoked, LeaseRequestResolved, TextDelta
from kernel.providers.base import StreamEnd, TextChunk as Chunk, UsageReport
from kernel.providers.scripted import Hold, ScriptedTurn, reply
from kernel.tools.descriptor import Risk, ToolDescriptor, ToolOutput
from kernel.tools.registry import builtin_registry
from ledger import AgentKill, LeaseRevoke

from .conftest import HANG, run, until

OBJECT = {"type": "object", "properties": {}, "additionalProperties": False}


def gated_tool(gate: asyncio.Event, started: asyncio.Event, tool_class="write", name="wait_gate") -> ToolDescriptor:
    async def go(ctx, tool_input):
        started.set()
        await gate.wait()
        return ToolOutput("opened")

    return ToolDescriptor(name=name, description="waits for the test", input_schema=OBJECT, output_schema={},
                          tool_class=tool_class, scope="test.wait", run=go,
                          risk=Risk.LOCAL_WRITE, trusted=True)


def test_kill_while_streaming_cancels_promptly_and_is_recorded(make_env):
    env = make_env()
    gate, reached = asyncio.Event(), asyncio.Event()
    env.provider.script(ScriptedTurn((UsageReport(5, 0), Chunk("partial "), Hold(gate, reached), Chunk("never"),
                              StreamEnd("end_turn"))))
    a = env.kernel.agents.spawn("t")
    lease_holder = env.kernel.leases.grant(a.id, "fs.read", 300)

    async def go():
        env.kernel.agents.send(a.id, "go")
        await reached.wait()
        env.kernel.agents.kill(a.id)
        assert (await env.kernel.agents.wait(a.id)).state == "killed"  # its work was cancelled

    run(go())
    info = env.kernel.agents.get(a.id)
    assert info.state == "killed"
    assert [e.text for e in env.of(TextDelta)] == ["partial "]
    [kill] = env.ledger.page(kind="agent.kill")
    assert isinstance(kill, AgentKill) and kill.subject == a.id and kill.actor == "user"
    [revoke] = env.ledger.page(kind="lease.revoke")
    assert isinstance(revoke, LeaseRevoke) and revoke.lease == lease_holder.id
    assert env.kernel.leases.list(a.id) == [] and env.of(AgentKilled)
    assert len(env.kernel.agents.conversation(a.id)) == 1  # the half reply never entered the conversation


def test_kill_while_a_tool_runs_cancels_it_and_records_the_cancel(make_env):
    gate, started = asyncio.Event(), asyncio.Event()
    env = make_env(tools=builtin_registry(extra=(gated_tool(gate, started),)))
    env.provider.script(reply(tools=(("wait_gate", {}),)))
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "test", 300)

    async def go():
        env.kernel.agents.send(a.id, "go")
        await started.wait()
        env.kernel.agents.kill(a.id)
        await env.kernel.agents.wait(a.id)

    run(go())
    [err] = env.ledger.page(kind="error")
    assert "cancelled" in err.message and err.cause == env.ledger.page(kind="tool")[0].seq
    assert env.ledger.page(kind="result") == []
    env.provider.assert_done()


def test_kill_while_a_lease_request_is_open_grants_nothing(make_env):
    env = make_env()
    env.approver.will(HANG)
    env.provider.script(reply(tools=(("fs_write", {"path": "a", "content": "x"}),)))
    a = env.kernel.agents.spawn("t")

    async def go():
        env.kernel.agents.send(a.id, "go")
        await until(lambda: env.approver.requests != [])
        env.kernel.agents.kill(a.id)
        await env.kernel.agents.wait(a.id)

    run(go())
    assert env.approver.cancelled == [env.approver.requests[0].id]
    assert env.ledger.page(kind="lease.grant") == [] and env.ledger.page(kind="tool") == []
    assert env.of(LeaseRequestResolved)[-1].outcome == "cancelled"
    assert not (env.workspace / "a").exists()


def test_a_grant_that_lands_during_the_kill_is_revoked(make_env):
    class GrantAfterKill:
        async def decide(self, request):
            env.kernel.agents.kill(a.id)          # the kill is in flight when the answer arrives
            return Grant(300.0)

    env = make_env(approver=GrantAfterKill())
    env.provider.script(reply(tools=(("fs_write", {"path": "a", "content": "x"}),)))
    a = env.kernel.agents.spawn("t")
    run(_send_and_wait(env, a.id))
    grants = {g.seq for g in env.ledger.page(kind="lease.grant")}
    revoked = {r.lease for r in env.ledger.page(kind="lease.revoke")}
    assert grants <= revoked and env.kernel.leases.list(a.id) == []
    assert env.ledger.page(kind="tool") == [] and not (env.workspace / "a").exists()


def test_grant_recorded_for_a_killed_agent_is_revoked_at_once(make_env):
    """The kernel's own guard: if a grant is applied for an agent already killed, it is revoked."""
    from kernel.agents.permission import _ask
    from kernel.tools.registry import builtin_registry as reg

    class Late:
        async def decide(self, request):
            agent.state = AgentState.KILLED  # what kill() leaves behind, without cancelling this coroutine
            return Grant(300.0)

    env = make_env(approver=Late())
    a = env.kernel.agents.spawn("t")
    agent = env.kernel.agents.process(a.id)

    async def go():
        try:
            await _ask(agent, reg().get("fs_write"), {"path": "a", "content": "x"}, "fs.write")
        except asyncio.CancelledError:
            return "cancelled"

    assert run(go()) == "cancelled"
    [grant] = env.ledger.page(kind="lease.grant")
    [revoke] = env.ledger.page(kind="lease.revoke")
    assert revoke.lease == grant.seq and env.kernel.leases.list(a.id) == []
    assert any(isinstance(e, LeaseRevoked) for e in env.events)


def test_budget_pause_then_raise_and_resume_continues_the_same_conversation(make_env):
    env = make_env()
    env.provider.script(reply(tools=(("fs_list", {}),), usage=(600, 500)), reply("finished", usage=(50, 10)))
    a = env.kernel.agents.spawn("t", budget=1000)
    env.kernel.leases.grant(a.id, "fs.read", 300)
    run(_send_and_wait(env, a.id))
    info = env.kernel.agents.get(a.id)
    assert info.state == "paused" and "budget reached" in info.reason and info.used == 1100
    assert len(env.provider.requests) == 1
    env.kernel.agents.raise_budget(a.id, 5000)

    async def resume():
        env.kernel.agents.resume(a.id)
        assert env.kernel.agents.get(a.id).state == "running"  # there was something to continue
        await env.kernel.agents.wait(a.id)

    run(resume())
    info = env.kernel.agents.get(a.id)
    assert info.state == "idle" and info.used == 1160
    second = env.provider.requests[1]
    assert [m.role for m in second.messages] == ["user", "assistant", "user"]
    env.provider.assert_done()


def test_usage_counts_input_at_start_and_output_at_end(make_env):
    env = make_env()
    gate, reached = asyncio.Event(), asyncio.Event()
    env.provider.script(ScriptedTurn((UsageReport(40, 1), Chunk("hi"), Hold(gate, reached), UsageReport(None, 9),
                              StreamEnd("end_turn"))))
    a = env.kernel.agents.spawn("t")

    async def go():
        env.kernel.agents.send(a.id, "go")
        await reached.wait()
        mid = env.kernel.agents.get(a.id)
        assert (mid.input_tokens, mid.output_tokens) == (40, 1)
        gate.set()
        await env.kernel.agents.wait(a.id)

    run(go())
    done = env.kernel.agents.get(a.id)
    assert (done.input_tokens, done.output_tokens) == (40, 9)


def test_user_pause_stops_before_the_next_request(make_env):
    env = make_env()
    env.provider.script(reply(tools=(("fs_list", {}),)))
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "fs.read", 300)

    from kernel.core.events import ToolCallStarted

    env.kernel.subscribe(lambda e: env.kernel.agents.pause(a.id) if isinstance(e, ToolCallStarted) else None)

    async def go():
        env.kernel.agents.send(a.id, "go")
        await env.kernel.agents.wait(a.id)

    run(go())
    info = env.kernel.agents.get(a.id)
    assert info.state == "paused" and info.reason == "paused by the user"
    env.provider.assert_done()  # the tool finished, and no second request was made
    assert env.ledger.page(kind="result")


def test_three_agents_in_parallel_share_the_workspace_with_their_own_leases(make_env):
    env = make_env()
    names = ["one", "two", "three"]
    agents = [env.kernel.agents.spawn(n) for n in names]
    # Scripted turns are consumed in request order; each agent writes its own file, then ends.
    for i in range(3):
        env.provider.script(reply(tools=(("fs_write", {"path": f"shared/{names[i]}.txt", "content": names[i]}),)))
    for i in range(3):
        env.provider.script(reply("done"))
    for ag in agents:
        env.kernel.leases.grant(ag.id, "fs.write", 300)

    async def go():
        for ag in agents:
            env.kernel.agents.send(ag.id, "write your file")
        await asyncio.gather(*(env.kernel.agents.wait(ag.id) for ag in agents))

    run(go())
    changes = env.ledger.page(kind="fs.write")
    calls = {c.seq: c for c in env.ledger.page(kind="tool")}
    assert len(changes) == 3
    for change in changes:
        call = calls[change.cause]
        assert change.actor == call.actor
        grant = env.ledger.get(call.lease)
        assert grant.subject == call.actor
    written = sorted(p.read_text() for p in (env.workspace / "shared").iterdir())
    assert written == sorted(names)
    assert {env.kernel.agents.get(ag.id).state for ag in agents} == {"idle"}


def test_independent_read_calls_run_concurrently_and_results_keep_order(make_env):
    gate_a, started_a = asyncio.Event(), asyncio.Event()
    gate_b, started_b = asyncio.Event(), asyncio.Event()
    tools = builtin_registry(extra=(gated_tool(gate_a, started_a, "read", "read_a"),
                                    gated_tool(gate_b, started_b, "read", "read_b")))
    env = make_env(tools=tools)
    env.provider.script(reply(tools=(("read_a", {}), ("read_b", {}))), reply("ok"))
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "test", 300)

    async def go():
        env.kernel.agents.send(a.id, "go")
        await started_a.wait()
        await started_b.wait()  # both running at once: neither gate is open yet
        gate_b.set()
        gate_a.set()
        await env.kernel.agents.wait(a.id)

    run(go())
    results = env.provider.requests[1].messages[-1].parts
    assert [r.name for r in results] == ["read_a", "read_b"]


def test_system_prompt_names_agent_user_date_and_attachment(make_env):
    env = make_env()
    env.provider.script(reply("hi"))
    a = env.kernel.agents.spawn("scribe")
    run(_send_and_wait(env, a.id))
    system = env.provider.requests[0].system
    assert "scribe" in system and a.id in system and "Ada" in system
    assert "2026" in system and "no desktop was attached" in system
    state = env.provider.requests[0].messages[-1].parts[-1].text  # the state block, at the tail
    assert state.startswith("[Agentdesk state]") and "No desktop is attached" in state
    assert "200,000" in state and "2026" in state  # budget left, the date


async def _send_and_wait(env, agent_id, text="go"):
    env.kernel.agents.send(agent_id, text)
    await env.kernel.agents.wait(agent_id)
