"""Durable agents: the conversation on the record, a restart that rebuilds it (and runs nothing twice),
interrupted agents resumed, archive, history, continue, and cost."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from kernel.agents.rebuild import INTERRUPTED
from kernel.core.errors import InvalidState, UnknownAgent
from kernel.core.events import AgentArchived, AgentState
from kernel.facade import Kernel
from kernel.compose import build_kernel
from kernel.context.layout import without_states
from kernel.core.messages import ToolResultPart
from kernel.providers.base import StreamEnd, TextChunk, UsageReport
from kernel.providers.scripted import Hold, ScriptedProvider, ScriptedTurn, reply
from kernel.tools.registry import builtin_registry
from ledger import Ledger, ModelRequest, ToolError, UserTurn

from .conftest import DENY, GRANT_5M, HANG, ScriptedApprover, run, until
from .test_processes import gated_tool


def restarted(env, provider: ScriptedProvider | None = None, tools=None, ledger: Ledger | None = None) -> Kernel:
    """A new kernel on the same ledger file, as after a restart (it restores the record)."""
    provider = provider or ScriptedProvider()
    return build_kernel(ledger=ledger or env.ledger, settings=env.kernel.settings, providers=lambda _n: provider,
                  clock=env.clock, approver=ScriptedApprover(), tools=tools, restore=True)


def test_the_record_rebuilds_exactly_the_conversation_the_model_saw(make_env):
    env = make_env()
    (env.workspace / "notes.txt").write_text("one\n")
    env.provider.script(
        reply("Reading and writing.", tools=(("fs_read", {"path": "notes.txt"}), ("fs_read", {"path": "missing.txt"}),
                                             ("fs_write", {"path": "out.txt", "content": "x\n"}),
                                             ("no_such_tool", {}), ("fs_read", {"path": 3}))),
        reply("Done, with one refusal."),
        reply(tools=(("shell_exec", {"command": "rm notes.txt"}),)),
        reply("The user said no.", usage=(40, 7)),
    )
    env.approver.will(GRANT_5M, GRANT_5M, DENY)
    a = env.kernel.agents.spawn("scribe")

    async def go():
        env.kernel.agents.send(a.id, "tidy the notes")
        await env.kernel.agents.wait(a.id)
        env.kernel.agents.send(a.id, "now delete notes.txt")
        await env.kernel.agents.wait(a.id)

    run(go())
    env.provider.assert_done()
    seen = env.kernel.agents.conversation(a.id)
    # what the model saw in its last request, plus its last reply, is the whole conversation
    assert without_states(env.provider.requests[-1].messages) == seen[:-1]  # plus the state blocks sent
    results = [p for m in seen for p in m.parts if isinstance(p, ToolResultPart)]
    assert [r.is_error for r in results] == [False, True, False, True, True, True]
    assert results[-1].content.startswith("permission denied")

    requests = [e for e in reversed(env.ledger.page(kind="request")) if isinstance(e, ModelRequest)]
    assert [r.reason for r in requests] == ["user-turn", "tool-results", "user-turn", "tool-results"]
    assert [r.status for r in requests] == ["ok"] * 4
    assert requests[-1].input_tokens == 40 and requests[-1].output_tokens == 7
    assert [m.text for m in env.ledger.page(kind="message") if isinstance(m, UserTurn)] == [
        "now delete notes.txt", "tidy the notes"]

    kernel = restarted(env)
    assert kernel.agents.conversation(a.id) == seen
    info = kernel.agents.get(a.id)
    assert (info.state, info.name) == (AgentState.IDLE, "scribe")
    old = env.kernel.agents.get(a.id)
    assert (info.input_tokens, info.output_tokens, info.budget) == (old.input_tokens, old.output_tokens, old.budget)
    assert [lease.scope for lease in kernel.leases.list(a.id)] == [lease.scope for lease in env.kernel.leases.list(a.id)]


def test_an_abandoned_kernel_comes_back_interrupted_and_runs_nothing_twice(make_env, tmp_path: Path):
    gate, started = asyncio.Event(), asyncio.Event()
    hold, reached = asyncio.Event(), asyncio.Event()
    tools = builtin_registry(extra=(gated_tool(gate, started),))
    env = make_env(tools=tools)
    runs = []
    started_runs = started

    env.provider.script(
        # a1 is cut mid-stream; a2 mid-tool-call (after a first call that finished); a3 waits for a lease
        ScriptedTurn((UsageReport(5, 0), TextChunk("half"), Hold(hold, reached), StreamEnd("end_turn"))),
        reply(tools=(("fs_list", {}), ("wait_gate", {}), ("wait_gate", {}))),
        reply(tools=(("fs_write", {"path": "x.txt", "content": "x"}),)),
    )
    env.approver.will(GRANT_5M, HANG)
    a1, a2, a3 = (env.kernel.agents.spawn(n) for n in ("streamer", "tooler", "asker"))
    env.kernel.leases.grant(a2.id, "test.wait", 600)

    async def abandon():
        env.kernel.agents.send(a1.id, "stream")
        await reached.wait()
        env.kernel.agents.send(a2.id, "run the gate")
        await started_runs.wait()
        runs.append("gate")
        env.kernel.agents.send(a3.id, "write x")
        await until(lambda: env.kernel.agents.get(a3.id).state is AgentState.WAITING)
        # no aclose: the process "dies" here. A new kernel opens the same file with its own connection.
        ledger = Ledger(env.ledger.path, clock=env.clock.now)
        provider = ScriptedProvider().script(reply("resumed after the stop"))
        kernel = restarted(env, provider, tools=builtin_registry(extra=(gated_tool(asyncio.Event(), asyncio.Event()),)),
                           ledger=ledger)
        try:
            states = {a.id: (a.state, a.reason) for a in kernel.agents.list()}
            assert {k: s for k, (s, _r) in states.items()} == {
                a1.id: AgentState.INTERRUPTED, a2.id: AgentState.INTERRUPTED, a3.id: AgentState.INTERRUPTED}
            assert "resume" in states[a1.id][1]
            conv2 = kernel.agents.conversation(a2.id)
            last = [p for p in conv2[-1].parts if isinstance(p, ToolResultPart)]
            assert [r.content for r in last][1:] == [INTERRUPTED, INTERRUPTED]
            assert not last[0].is_error  # fs_list finished before the stop: its real result stays
            conv3 = kernel.agents.conversation(a3.id)
            assert [p.content for p in conv3[-1].parts if isinstance(p, ToolResultPart)] == [INTERRUPTED]
            assert kernel.agents.conversation(a1.id)[-1].text == "stream"  # the half reply never entered it
            errors = [e for e in ledger.page(kind="error") if isinstance(e, ToolError) and e.message == INTERRUPTED]
            assert len(errors) == 3 and sum(e.cause is not None for e in errors) == 1  # one had started
            assert not (env.workspace / "x.txt").exists()

            # a second restart adds nothing: the conversation is well formed now
            before = ledger.last_seq()
            again = restarted(env, ledger=ledger)
            assert ledger.last_seq() == before and again.agents.conversation(a2.id) == conv2

            # resume continues the same conversation, with reason "resume"; nothing is re-run
            kernel.agents.resume(a2.id)
            assert kernel.agents.get(a2.id).state is AgentState.RUNNING  # there was something to continue
            await kernel.agents.wait(a2.id)
            assert kernel.agents.get(a2.id).state is AgentState.IDLE
            assert without_states(provider.requests[0].messages) == conv2
            provider.assert_done()
            [req] = [e for e in ledger.page(kind="request", limit=1)]
            assert isinstance(req, ModelRequest) and req.reason == "resume" and req.actor == a2.id
            calls = [e.tool for e in reversed(ledger.page(kind="tool")) if e.actor == a2.id]
            assert calls == ["fs_list", "wait_gate"]  # the second gate call never ran, then or since
            with pytest.raises(InvalidState):
                kernel.agents.resume(a2.id)
            # ids stay unique after a restart
            assert kernel.agents.spawn("new").id == "a4"
            await kernel.aclose()
        finally:
            gate.set()
            hold.set()
            ledger.close()

    run(abandon())
    assert runs == ["gate"]


def test_archive_history_and_continue(make_env):
    env = make_env()
    env.provider.script(reply("first answer"), reply("second answer"))
    a = env.kernel.agents.spawn("historian")
    b = env.kernel.agents.spawn("other")

    async def go():
        env.kernel.agents.send(a.id, "Tell me about Lovelace")
        await env.kernel.agents.wait(a.id)

    run(go())
    archived = env.kernel.agents.archive(a.id)
    assert archived.id == a.id and env.of(AgentArchived)
    assert [x.id for x in env.kernel.agents.list()] == [b.id]
    [item] = env.kernel.agents.history()
    assert (item.id, item.name, item.first_prompt, item.archived) == (a.id, "historian", "Tell me about Lovelace", True)
    assert (item.input_tokens, item.output_tokens) == (10, 5)
    assert env.kernel.agents.history("lovelace HISTORIAN") == [item] and env.kernel.agents.history("babbage") == []
    assert env.kernel.agents.conversation(a.id)[-1].text == "first answer"  # read-only, from the record
    with pytest.raises(UnknownAgent):
        env.kernel.agents.conversation("a99")

    # a restart keeps it out of the table
    kernel = restarted(env)
    assert [x.id for x in kernel.agents.list()] == [b.id] and [i.id for i in kernel.agents.history()] == [a.id]

    revived = env.kernel.agents.revive(a.id)
    assert revived.state is AgentState.IDLE and env.kernel.agents.history() == []

    async def more():
        env.kernel.agents.send(a.id, "and Babbage?")
        await env.kernel.agents.wait(a.id)

    run(more())
    assert [m.text for m in env.kernel.agents.conversation(a.id)] == [
        "Tell me about Lovelace", "first answer", "and Babbage?", "second answer"]
    env.kernel.agents.kill(b.id)
    assert env.kernel.agents.history() == []  # killed, it stays in this session's table
    later = restarted(env)
    assert [i.id for i in later.agents.list()] == [a.id]
    [killed] = later.agents.history()
    assert (killed.id, killed.killed, killed.archived) == (b.id, True, False)
    with pytest.raises(InvalidState):
        later.agents.revive(b.id)


def test_working_agents_cannot_be_archived(make_env):
    env = make_env()
    gate, reached = asyncio.Event(), asyncio.Event()
    env.provider.script(ScriptedTurn((UsageReport(5, 0), Hold(gate, reached), StreamEnd("end_turn"))))
    a = env.kernel.agents.spawn("busy")

    async def go():
        env.kernel.agents.send(a.id, "go")
        await reached.wait()
        with pytest.raises(InvalidState):
            env.kernel.agents.archive(a.id)
        gate.set()
        await env.kernel.agents.wait(a.id)

    run(go())


def test_cost_from_the_price_table_and_tokens_only_for_unknown_models(make_env):
    prices = {"anthropic": {"claude-sonnet-4-5": {"input": 3.0, "output": 15.0, "cached_input": 0.3}}}
    env = make_env(prices=prices)
    env.provider.script(reply("a", usage=(1_000_000, 100_000)), reply("b", usage=(500, 50)))
    priced = env.kernel.agents.spawn("priced", provider="anthropic", model="claude-sonnet-4-5")
    unknown = env.kernel.agents.spawn("local", provider="openai-chat", model="llama3.1:8b")

    async def go():
        env.kernel.agents.send(priced.id, "hi")
        await env.kernel.agents.wait(priced.id)
        env.kernel.agents.send(unknown.id, "hi")
        await env.kernel.agents.wait(unknown.id)

    run(go())
    assert env.kernel.agents.get(priced.id).cost == pytest.approx(3.0 + 1.5)
    assert env.kernel.agents.get(unknown.id).cost is None  # never a made-up price
    spend = env.kernel.agents.spend_today()
    assert spend.tokens == 1_100_000 + 550 and spend.unpriced_tokens == 550
    assert spend.cost == pytest.approx(4.5)
    # a kernel started later counts today's requests from the record
    assert restarted(env).agents.spend_today() == spend


def test_budget_raises_survive_a_restart(make_env):
    env = make_env()
    a = env.kernel.agents.spawn("b", budget=100)
    env.kernel.agents.raise_budget(a.id, 5000)
    assert restarted(env).agents.get(a.id).budget == 5000


def test_a_hostile_record_never_crashes_a_start(make_env):
    """Fields of the wrong type (a hand-edited ledger, re-chained) read as empty; the agent still comes back."""
    from ledger import AgentBudget, AgentSpawn, ToolResult

    env = make_env()
    a = env.kernel.agents.spawn("odd").id
    env.ledger.append_many([
        UserTurn(actor=a, text=123),
        ModelRequest(actor=a, reason="user-turn", provider="x", model="y", status="ok", text=["no"],
                     tool_calls=7, input_tokens="many", output_tokens=-5),
        ModelRequest(actor=a, reason="user-turn", provider="x", model="y", status="ok", text="fine",
                     tool_calls=({"id": 5, "name": None, "input": "x", "meta": 3}, "junk")),
        ToolResult(actor=a, cause=1, call=None, content=None),
        AgentBudget(actor="user", subject=a, budget="lots"),
        AgentSpawn(actor="a77", name=None, workspace=5),
    ])
    kernel = restarted(env)
    assert [x.id for x in kernel.agents.list()] == [a]
    assert kernel.agents.get(a).budget == env.kernel.agents.get(a).budget
    conversation = kernel.agents.conversation(a)
    assert conversation[-1].role == "user" and kernel.agents.get(a).state is AgentState.INTERRUPTED
    assert kernel.agents.history() == []
