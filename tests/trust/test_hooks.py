"""Hooks around real calls: real programs, the call as JSON on stdin, a veto, a hang, a formatter."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

from kernel.providers.scripted import reply
from kernel.trust.hook_config import Hook
from ledger import HookRun

from tests.kernel.conftest import run


async def _send(env, agent_id, text="go"):
    env.kernel.agents.send(agent_id, text)
    await env.kernel.agents.wait(agent_id)


def script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_a_veto_hook_stops_the_call_and_its_stderr_is_the_reason(make_env, tmp_path):
    seen = tmp_path / "seen.json"
    veto = script(tmp_path / "veto.sh", f'cat > "{seen}"\necho "no writes to secrets" >&2\nexit 2\n')
    env = make_env(hooks=(Hook("guard", "before", (veto,), "fs.write", 5.0),))
    env.provider.script(reply(tools=(("fs_write", {"path": "secrets.txt", "content": "x"}),)), reply("ok"))
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "fs.write", 300)
    run(_send(env, a.id))
    assert not (env.workspace / "secrets.txt").exists()
    payload = json.loads(seen.read_text())
    assert payload["tool"] == "fs_write" and payload["input"]["path"] == "secrets.txt" and payload["risk"] == "R1"
    [call] = env.ledger.page(kind="tool")
    assert payload["call_seq"] == call.seq
    [hook] = env.ledger.page(kind="hook")
    assert isinstance(hook, HookRun) and hook.outcome == "veto" and hook.exit_code == 2 and hook.cause == call.seq
    [err] = env.ledger.page(kind="error")
    assert err.message == "vetoed by the hook 'guard': no writes to secrets" and err.cause == call.seq
    result = env.provider.requests[1].messages[-1].parts[0]
    assert result.is_error and result.content == err.message


def test_a_hanging_hook_is_killed_with_its_process_group_at_the_timeout(make_env, tmp_path):
    pid_file = tmp_path / "child.pid"
    hang = script(tmp_path / "hang.sh", f'sleep 300 &\necho $! > "{pid_file}"\nwait\n')
    env = make_env(hooks=(Hook("slow", "before", (hang,), "*", 0.5),))
    env.provider.script(reply(tools=(("fs_write", {"path": "a", "content": "x"}),)), reply("ok"))
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "fs.write", 300)
    run(_send(env, a.id))  # run's 30 s deadline, not a measurement: waiting out `sleep 300` would miss it
    assert not (env.workspace / "a").exists()
    [hook] = env.ledger.page(kind="hook")
    assert hook.outcome == "timeout" and hook.exit_code is None
    [err] = env.ledger.page(kind="error")
    assert "did not finish within 0.5 s" in err.message
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10  # the grandchild was sent SIGKILL with its group; wait for it to go
    while _alive(child) and time.monotonic() < deadline:
        os.sched_yield()
    assert not _alive(child)


def test_a_broken_hook_is_a_clear_error_and_an_after_hook_formats_the_result(make_env, tmp_path):
    upper = script(tmp_path / "upper.sh", "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"content\"].upper())'\n")
    env = make_env(hooks=(Hook("missing", "before", (str(tmp_path / "nope"),), "fs.read", 5.0),
                          Hook("upper", "after", (upper,), "fs.write", 5.0)))
    env.provider.script(reply(tools=(("fs_write", {"path": "a", "content": "x"}),)),
                        reply(tools=(("fs_read", {"path": "a"}),)), reply("ok"))
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "fs", 300)
    run(_send(env, a.id))
    formatted = env.provider.requests[1].messages[-1].parts[0]
    assert not formatted.is_error and formatted.content == "CREATED A (1 LINES, 1 BYTES)\n"
    broken = env.provider.requests[2].messages[-1].parts[0]
    assert broken.is_error and "the hook 'missing' failed: cannot start" in broken.content
    assert sorted(h.outcome for h in env.ledger.page(kind="hook")) == ["failed", "ok"]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_hook_does_not_inherit_the_kernels_keys(make_env, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-hook-canary-12345678")
    monkeypatch.setenv("SERVICE_TOKEN", "tok-hook-canary-87654321")
    dumped = tmp_path / "env.txt"
    dump = script(tmp_path / "dump.sh", f'env > "{dumped}"\ncat > /dev/null\n')
    env = make_env(hooks=(Hook("look", "before", (dump,), "fs.read", 5.0),))
    env.provider.script(reply(tools=(("fs_list", {}),)), reply("ok"))
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "fs.read", 300)
    run(_send(env, a.id))
    seen = dumped.read_text()
    assert "PATH=" in seen  # the rest of the environment is there
    assert "hook-canary" not in seen
