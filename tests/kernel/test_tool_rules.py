"""run_tool's rules: unknown tools, bad input, leases asked/granted/denied/expired, recording."""

from __future__ import annotations

from kernel.core.errors import ProviderError
from kernel.core.events import Outcome, LeaseRequested, LeaseRequestResolved, ToolCallFinished
from kernel.core.messages import ToolResultPart
from kernel.providers.base import StreamEnd, ToolCallReady, UsageReport
from kernel.providers.scripted import ScriptedTurn, reply
from ledger import Denied, Expired, FileChange, LeaseGrant, ToolCall, ToolError, ToolResult

from .conftest import DENY, GRANT_5M, HANG, run, until


def results_seen(provider, request_index: int) -> list[ToolResultPart]:
    """The tool results the model was sent in a given request."""
    last = provider.requests[request_index].messages[-1]
    return [p for p in last.parts if isinstance(p, ToolResultPart)]


def test_unknown_tool_is_an_error_result_the_model_sees(make_env):
    env = make_env()
    env.provider.script(reply(tools=(("fs_teleport", {"path": "x"}),)), reply("sorry"))
    a = env.kernel.agents.spawn("t")

    async def go():
        env.kernel.agents.send(a.id, "go")
        await env.kernel.agents.wait(a.id)

    run(go())
    [res] = results_seen(env.provider, 1)
    assert res.is_error and "unknown tool 'fs_teleport'" in res.content and "fs_write" in res.content
    [err] = env.ledger.page(kind="error")
    assert isinstance(err, ToolError) and err.tool == "fs_teleport" and err.actor == a.id
    assert env.kernel.agents.get(a.id).state == "idle"
    assert [e.outcome for e in env.of(ToolCallFinished)] == [Outcome.ERROR]
    env.provider.assert_done()


def test_input_failing_its_schema_is_an_error_result(make_env):
    env = make_env()
    env.provider.script(reply(tools=(("fs_write", {"path": "a.txt"}),)), reply("ok"))
    a = env.kernel.agents.spawn("t")
    run(_send(env, a.id))
    [res] = results_seen(env.provider, 1)
    assert res.is_error and "content" in res.content
    assert env.approver.requests == []  # refused before any lease was asked for
    assert not (env.workspace / "a.txt").exists()


def test_malformed_tool_json_is_an_error_result(make_env):
    env = make_env()
    bad = ScriptedTurn((UsageReport(5, 0), ToolCallReady("c1", "fs_read", None, raw_arguments='{"path": ', error="truncated"),
                UsageReport(None, 3), StreamEnd("tool_use")))
    env.provider.script(bad, reply("ok"))
    a = env.kernel.agents.spawn("t")
    run(_send(env, a.id))
    [res] = results_seen(env.provider, 1)
    assert res.is_error and "not valid JSON" in res.content
    [err] = env.ledger.page(kind="error")
    assert err.input == {"raw": '{"path": '}


def test_no_lease_then_granted_runs_and_records_with_lease_and_cause(make_env):
    env = make_env()
    env.approver.will(GRANT_5M)
    env.provider.script(reply("I'll write it.", tools=(("fs_write", {"path": "n.md", "content": "hi\n"}),)),
                        reply("done"))
    a = env.kernel.agents.spawn("scribe")
    run(_send(env, a.id))
    assert (env.workspace / "n.md").read_text() == "hi\n"
    [req] = env.approver.requests
    assert req.scope == "fs.write" and req.tool == "fs_write" and req.agent_name == "scribe"
    assert req.preview is not None and "n.md" in (req.preview.path or req.preview.summary)
    assert req.durations[0] == 300.0 and 8 * 3600.0 in req.durations
    [grant] = env.ledger.page(kind="lease.grant")
    [call] = env.ledger.page(kind="tool")
    [change] = env.ledger.page(kind="fs.write")
    [result] = env.ledger.page(kind="result")
    assert isinstance(grant, LeaseGrant) and grant.subject == a.id and grant.until == env.clock.now() + 300
    assert isinstance(call, ToolCall) and call.lease == grant.seq and call.actor == a.id
    assert isinstance(change, FileChange) and change.cause == call.seq and change.actor == a.id
    assert isinstance(result, ToolResult) and result.cause == call.seq
    states = [e.agent.state for e in env.events if type(e).__name__ == "AgentStateChanged"]
    assert "waiting" in states
    [resolved] = env.of(LeaseRequestResolved)
    assert resolved.outcome == "granted" and resolved.lease.id == grant.seq


def test_denied_is_recorded_and_the_model_is_told(make_env):
    env = make_env()
    env.approver.will(DENY)
    env.provider.script(reply(tools=(("fs_write", {"path": "n.md", "content": "x"}),)), reply("ok"))
    a = env.kernel.agents.spawn("t")
    run(_send(env, a.id))
    [res] = results_seen(env.provider, 1)
    assert res.is_error and res.content == "permission denied: the user did not grant fs.write"
    [denied] = env.ledger.page(kind="denied")
    assert isinstance(denied, Denied) and denied.scope == "fs.write" and denied.subject == a.id
    assert env.ledger.page(kind="tool") == [] and not (env.workspace / "n.md").exists()
    assert [e.outcome for e in env.of(ToolCallFinished)] == [Outcome.DENIED]


def test_unanswered_request_expires_and_is_recorded_as_expired_not_denied(make_env):
    env = make_env(request_expiry_s=120.0)
    env.approver.will(HANG)
    env.provider.script(reply(tools=(("fs_write", {"path": "n.md", "content": "x"}),)), reply("ok"))
    a = env.kernel.agents.spawn("t")

    async def go():
        env.kernel.agents.send(a.id, "go")
        await until(lambda: len(env.approver.requests) == 1 and env.clock.sleepers >= 1)
        env.clock.advance(119)
        await until(lambda: True)
        assert env.kernel.agents.get(a.id).state == "waiting"
        env.clock.advance(1)
        await env.kernel.agents.wait(a.id)

    run(go())
    [res] = results_seen(env.provider, 1)
    assert res.is_error and "expired" in res.content and "fs.write" in res.content
    assert env.ledger.page(kind="denied") == []
    [exp] = env.ledger.page(kind="expired")
    assert isinstance(exp, Expired) and exp.scope == "fs.write" and exp.lease is None
    assert env.approver.cancelled  # the open dialog was told to go away
    assert env.of(LeaseRequestResolved)[0].outcome == "expired"
    assert [e.outcome for e in env.of(ToolCallFinished)] == [Outcome.EXPIRED]


def test_a_broader_lease_covers_dotted_scopes_and_star_covers_all(make_env):
    env = make_env()
    env.provider.script(
        reply(tools=(("fs_write", {"path": "a", "content": "1"}), ("fs_read", {"path": "a"}))), reply("ok"))
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "fs", 300)
    run(_send(env, a.id))
    assert env.approver.requests == []
    assert [c.lease for c in env.ledger.page(kind="tool")] == [env.ledger.page(kind="lease.grant")[0].seq] * 2

    env2 = make_env()
    env2.provider.script(reply(tools=(("fs_list", {}),)), reply("ok"))
    b = env2.kernel.agents.spawn("u")
    env2.kernel.leases.grant(b.id, "*", 300)
    run(_send(env2, b.id))
    assert env2.approver.requests == []


def test_fs_read_lease_does_not_cover_fs_write(make_env):
    env = make_env()
    env.approver.will(DENY)
    env.provider.script(reply(tools=(("fs_write", {"path": "a", "content": "1"}),)), reply("ok"))
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "fs.read", 300)
    run(_send(env, a.id))
    assert [r.scope for r in env.approver.requests] == ["fs.write"]


def test_lease_expiry_mid_conversation_asks_again(make_env):
    env = make_env()
    env.approver.will(GRANT_5M, DENY)
    env.provider.script(reply(tools=(("fs_write", {"path": "a", "content": "1"}),)), reply("first done"),
                        reply(tools=(("fs_write", {"path": "a", "content": "2"}),)), reply("second"))
    a = env.kernel.agents.spawn("t")
    run(_send(env, a.id))
    assert (env.workspace / "a").read_text() == "1"
    env.clock.advance(301)
    run(_send(env, a.id, "again"))
    assert (env.workspace / "a").read_text() == "1"
    assert len(env.approver.requests) == 2
    assert env.ledger.page(kind="expired")[0].lease == env.ledger.page(kind="lease.grant")[0].seq


def test_workspace_escape_is_refused_as_an_error_result(make_env, tmp_path):
    env = make_env()
    env.provider.script(reply(tools=(("fs_write", {"path": "../outside.txt", "content": "x"}),)), reply("ok"))
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "fs", 300)
    run(_send(env, a.id))
    [res] = results_seen(env.provider, 1)
    assert res.is_error and "outside the workspace" in res.content
    assert not (tmp_path / "outside.txt").exists()
    assert env.ledger.page(kind="fs.write") == []


def test_provider_failure_fails_the_agent_with_a_reason(make_env):
    env = make_env()
    env.provider.script(ScriptedTurn((ProviderError("scripted", "overloaded", "overloaded after 3 retries"),)))
    a = env.kernel.agents.spawn("t")
    run(_send(env, a.id))
    info = env.kernel.agents.get(a.id)
    assert info.state == "failed" and "overloaded after 3 retries" in info.reason


def test_permission_request_event_carries_exact_scope(make_env):
    env = make_env()
    env.approver.will(GRANT_5M)
    env.provider.script(reply(tools=(("fs_read", {"path": "."}),)), reply("ok"))
    (env.workspace / "f").write_text("x")
    a = env.kernel.agents.spawn("t")
    run(_send(env, a.id))
    [req] = env.of(LeaseRequested)
    assert req.request.scope == "fs.read" and req.request.agent_id == a.id


async def _send(env, agent_id, text="go"):
    env.kernel.agents.send(agent_id, text)
    await env.kernel.agents.wait(agent_id)


def test_a_shell_lease_does_not_grant_the_network(make_env):
    from kernel.leases.lease import scope_covers

    assert scope_covers("shell.exec", "shell.exec") and not scope_covers("shell.exec", "shell.exec.net")
    assert not scope_covers("shell", "shell.exec.net") and scope_covers("shell.exec.net", "shell.exec.net")
    assert scope_covers("*", "shell.exec.net") and scope_covers("fs", "fs.write")
    env = make_env()
    env.approver.will(DENY)
    env.provider.script(reply(tools=(("shell_exec", {"command": "true", "network": True}),)), reply("ok"))
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "shell.exec", 300)
    run(_send(env, a.id))
    assert [r.scope for r in env.approver.requests] == ["shell.exec.net"]


def test_every_ledger_entry_is_announced_once(make_env):
    from kernel.core.events import LedgerAppended

    env = make_env()
    env.approver.will(GRANT_5M)
    env.provider.script(reply(tools=(("fs_write", {"path": "a", "content": "1"}), ("fs_edit",
                                     {"path": "a", "old": "1", "new": "2"}))), reply("ok"))
    a = env.kernel.agents.spawn("t")
    run(_send(env, a.id))
    env.kernel.ledger.undo(0)
    announced = [e.entry.seq for e in env.of(LedgerAppended)]
    assert sorted(announced) == sorted(e.seq for e in env.ledger.page(limit=1000))
    assert len(announced) == len(set(announced))


def test_request_names_the_call_and_new_settings_apply_to_later_requests(make_env):
    from dataclasses import replace

    env = make_env()
    env.approver.will(DENY, DENY)
    env.provider.script(reply(tools=(("fs_write", {"path": "a", "content": "1"}),)), reply("no"),
                        reply(tools=(("fs_write", {"path": "a", "content": "1"}),)), reply("no"))
    a = env.kernel.agents.spawn("t")
    run(_send(env, a.id))
    first = env.approver.requests[0]
    assert first.call_id == env.provider.requests[1].messages[-2].tool_uses[0].id
    assert first.default_duration == 900 and first.expires_at == env.kernel.now() + 120
    env.kernel.update_settings(replace(env.kernel.settings, default_lease_s=1800.0, request_expiry_s=60.0))
    run(_send(env, a.id, "again"))
    second = env.approver.requests[1]
    assert second.default_duration == 1800 and 1800 in second.durations
    assert second.expires_at == env.kernel.now() + 60


def test_an_answer_given_the_moment_a_request_is_published_is_not_lost(tmp_path):
    """A desktop may answer inside the LeaseRequested callback, before the kernel waits."""
    from kernel.core.clock import ManualClock
    from kernel.core.events import LeaseRequested
    from kernel.compose import build_kernel
    from kernel.providers.scripted import ScriptedProvider
    from kernel.config.settings import Settings
    from ledger import Ledger

    (tmp_path / "ws").mkdir()
    provider = ScriptedProvider().script(reply(tools=(("fs_write", {"path": "a", "content": "1"}),)), reply("ok"))
    with Ledger(tmp_path / "l.db") as ledger:
        kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(tmp_path / "ws")),
                        providers=lambda _n: provider, clock=ManualClock())  # the kernel's own pending approver
        answered = []
        kernel.subscribe(lambda e: answered.append(kernel.leases.resolve(e.request.id, GRANT_5M))
                         if isinstance(e, LeaseRequested) else None)
        a = kernel.agents.spawn("t")
        assert kernel.leases.resolve(999, GRANT_5M) is False  # never asked

        async def go():
            kernel.agents.send(a.id, "go")
            await kernel.agents.wait(a.id)

        run(go())
        assert answered == [True] and (tmp_path / "ws" / "a").read_text() == "1"
        assert kernel.leases.pending() == []
