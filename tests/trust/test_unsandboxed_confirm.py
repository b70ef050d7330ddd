"""A shell command that would run WITHOUT the sandbox is a one-off confirmation, every time, through the
real loop and the kernel's own shell_exec: no lease or policy stands in for it, and unattended it is refused.

bubblewrap is made unfindable by giving the kernel a PATH without it (the command then runs with bash)."""

from __future__ import annotations

from kernel.leases.approver import Grant
from kernel.core.messages import ToolResultPart
from kernel.providers.scripted import reply
from ledger import Denied

from tests.kernel.conftest import DENY, run

ONCE = Grant(0.0)
WITHOUT = "runs WITHOUT a sandbox: it can read and change everything you can"


async def _send(env, agent_id, text="go"):
    env.kernel.agents.send(agent_id, text)
    await env.kernel.agents.wait(agent_id)


def _results(env, index):
    return [p for p in env.provider.requests[index].messages[-1].parts if isinstance(p, ToolResultPart)]


def test_each_unsandboxed_command_is_confirmed_once_whatever_the_lease_and_policy(make_env, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent-bin")  # no bwrap to find
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/run/user/canary")
    monkeypatch.setenv("AGENTDESK_HOME", "/nonexistent/agentdesk-canary")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-canary-unsandboxed")
    env = make_env(allow_unsandboxed_shell=True, policies={"shell.exec": "auto"})
    env.approver.will(ONCE, DENY)
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "shell.exec", 3600)
    env.provider.script(reply(tools=(("shell_exec", {"command": "export -p > one.txt"}),)),
                        reply(tools=(("shell_exec", {"command": "echo two > two.txt"}),)), reply("done"))
    run(_send(env, a.id))
    first, second = env.approver.requests
    for asked in (first, second):
        assert asked.once and asked.scope == "shell.exec" and asked.durations == (0.0,)
        assert any(WITHOUT in line for line in asked.detail) and "confirmed every time" in asked.reason
    ran = (env.workspace / "one.txt").read_text()  # confirmed: it ran, with the sandbox's cleaned environment
    assert "AGENTDESK_SANDBOX=\"none\"" in ran and "canary" not in ran  # (export -p: PATH has no env)
    assert "XDG_RUNTIME_DIR" not in ran and "AGENTDESK_HOME" not in ran
    assert not (env.workspace / "two.txt").exists()             # refused: it did not
    [res] = _results(env, 2)
    assert res.is_error and "permission denied" in res.content


def test_an_unattended_run_is_refused_an_unsandboxed_command_at_once(make_env, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent-bin")
    env = make_env(allow_unsandboxed_shell=True)
    a = env.kernel.agents.spawn("nightly", unattended=True)
    env.kernel.leases.grant(a.id, "shell.exec", 3600)
    env.provider.script(reply(tools=(("shell_exec", {"command": "echo x > x.txt"}),)), reply("ok"))
    run(_send(env, a.id))
    assert env.approver.requests == [] and not (env.workspace / "x.txt").exists()
    [denied] = env.ledger.page(kind="denied")
    assert isinstance(denied, Denied) and denied.actor == "kernel" and denied.reason.startswith("unattended: ")
    [res] = _results(env, 1)
    assert res.is_error and "nobody is there to confirm shell_exec" in res.content


def test_a_sandboxed_command_under_a_lease_is_not_asked_about(make_env):
    env = make_env(allow_unsandboxed_shell=True)  # allowed, but bubblewrap works here: the sandbox is used
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "shell.exec", 3600)
    env.provider.script(reply(tools=(("shell_exec", {"command": "echo in > in.txt"}),)), reply("done"))
    run(_send(env, a.id))
    assert env.approver.requests == [] and (env.workspace / "in.txt").read_text() == "in\n"


def test_the_descriptor_says_per_call_and_follows_settings_changes():
    from dataclasses import replace

    from kernel.config.settings import Settings
    from kernel.core.risk import Risk
    from kernel.tools.shell import shell_tool

    holder = [Settings(allow_unsandboxed_shell=False)]
    tool = shell_tool(lambda: holder[0], index=None, bwrap="/nonexistent/bwrap")
    call = {"command": "true"}
    assert not tool.confirms(call) and tool.risk_for(call) is Risk.LOCAL_WRITE  # refused when run, never asked
    assert tool.detail_of is not None and tool.detail_of("a1", call) == ()
    holder[0] = replace(holder[0], allow_unsandboxed_shell=True)
    assert tool.confirms(call) and tool.risk_for(call) is Risk.OUTWARD
    assert tool.detail_of("a1", call) == (WITHOUT + ", and use the network",)
    sandboxed = shell_tool(lambda: holder[0], index=None)  # bubblewrap works here
    assert not sandboxed.confirms(call) and sandboxed.risk_for(call) is Risk.LOCAL_WRITE
