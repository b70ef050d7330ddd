"""Each policy mode through the real executor, and the strict check of what settings.json may say."""

from __future__ import annotations

from kernel.leases.approver import Grant
from kernel.core.events import LeaseGranted
from kernel.providers.scripted import reply
from kernel.config.schema import check_settings
from kernel.tools.descriptor import Risk
from kernel.trust.policy import Mode, mode_for
from ledger import Denied

from tests.kernel.conftest import GRANT_5M, run


async def _send(env, agent_id, text="go"):
    env.kernel.agents.send(agent_id, text)
    await env.kernel.agents.wait(agent_id)


def writes(*names: str):
    return tuple(("fs_write", {"path": n, "content": n}) for n in names)


def test_ask_is_the_default_one_lease_covers_later_calls(make_env):
    env = make_env()
    env.approver.will(GRANT_5M)
    env.provider.script(reply(tools=writes("a")), reply(tools=writes("b")), reply("ok"))
    a = env.kernel.agents.spawn("t")
    run(_send(env, a.id))
    assert len(env.approver.requests) == 1 and not env.approver.requests[0].once
    assert (env.workspace / "b").exists()


def test_deny_refuses_without_asking_and_says_so(make_env):
    env = make_env(policies={"fs": "deny"})
    env.provider.script(reply(tools=writes("a")), reply("ok"))
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "fs.write", 300)  # even a lease does not outrank a deny policy
    run(_send(env, a.id))
    assert env.approver.requests == [] and not (env.workspace / "a").exists()
    [denied] = env.ledger.page(kind="denied")
    assert isinstance(denied, Denied) and denied.actor == "policy" and denied.reason == "the policy for fs.write is deny"
    last = env.provider.requests[1].messages[-1].parts[0]
    assert last.is_error and "your policy refuses fs.write" in last.content


def test_auto_grants_the_default_lease_as_policy_visible_like_any_lease(make_env):
    env = make_env(policies={"fs.write": "auto"}, default_lease_s=600.0)
    env.provider.script(reply(tools=writes("a")), reply(tools=writes("b")), reply("ok"))
    a = env.kernel.agents.spawn("t")
    run(_send(env, a.id))
    assert env.approver.requests == [] and (env.workspace / "b").exists()
    [grant] = env.ledger.page(kind="lease.grant")
    assert grant.actor == "policy" and grant.scope == "fs.write" and grant.duration_s == 600.0
    assert [e.lease.scope for e in env.of(LeaseGranted)] == ["fs.write"]
    assert [l.scope for l in env.kernel.leases.list(a.id)] == ["fs.write"]
    assert {c.lease for c in env.ledger.page(kind="tool")} == {grant.seq}


def test_confirm_asks_on_every_call_and_no_lease_covers_it(make_env):
    env = make_env(policies={"fs.write": "confirm"})
    env.approver.will(Grant(0.0), Grant(0.0))
    env.provider.script(reply(tools=writes("a")), reply(tools=writes("b")), reply("ok"))
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "fs", 300)
    run(_send(env, a.id))
    assert [r.once for r in env.approver.requests] == [True, True]
    assert "your policy for fs.write is to confirm every call" == env.approver.requests[0].reason
    assert len(env.ledger.page(kind="confirm")) == 2 and (env.workspace / "b").exists()


def test_mode_for_prefers_the_most_specific_policy_and_r3_defaults_to_confirm():
    policies = {"*": "auto", "fs": "ask", "fs.write": "deny"}
    assert mode_for("fs.write", Risk.LOCAL_WRITE, policies) is Mode.DENY
    assert mode_for("fs.read", Risk.LOCAL_READ, policies) is Mode.ASK
    assert mode_for("net.fetch", Risk.NETWORK_READ, policies) is Mode.AUTO
    assert mode_for("shell.exec.net", Risk.OUTWARD, {}) is Mode.CONFIRM
    assert mode_for("shell.exec.net", Risk.OUTWARD, policies) is Mode.CONFIRM  # "*" never lifts an outward call
    assert mode_for("shell.exec.net", Risk.OUTWARD, {"shell.exec.net": "ask"}) is Mode.ASK
    assert mode_for("fs.read", Risk.LOCAL_READ, {}) is Mode.ASK


def test_settings_check_policies_and_hooks_strictly():
    ok = check_settings({"policies": {"fs.read": "auto", "*": "ask"},
                         "hooks": [{"name": "audit", "when": "after", "command": ["~/bin/audit", "-q"]}]})
    assert not ok.errors and ok.values["policies"] == {"fs.read": "auto", "*": "ask"}
    assert ok.values["hooks"][0].timeout_s == 10.0
    bad = [{"policies": {"fs.read": "always"}}, {"policies": {"FS": "ask"}}, {"policies": ["fs"]},
           {"hooks": [{"name": "x", "when": "during", "command": ["/bin/true"]}]},
           {"hooks": [{"name": "x", "when": "before", "command": ["true"]}]},
           {"hooks": [{"name": "x", "when": "before", "command": ["/bin/true"], "timeout_s": 0}]},
           {"hooks": [{"name": "x", "when": "before", "command": ["/bin/true"], "shell": True}]},
           {"hooks": [{"name": "x", "when": "before", "command": ["/bin/true"]}] * 2},
           {"hooks": {"name": "x"}}]
    for data in bad:
        checked = check_settings(data)
        assert len(checked.errors) == 1 and not checked.values, data
        assert checked.errors[0].field == next(iter(data))
