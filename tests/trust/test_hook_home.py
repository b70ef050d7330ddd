"""A hook gets nothing that leads it to the kernel: no ``AGENTDESK_HOME`` (and so no socket path or ledger)."""

from __future__ import annotations

import stat
from pathlib import Path

from kernel.providers.scripted import reply
from kernel.trust.hook_config import Hook
from kernel.trust.hooks import hook_env

from tests.kernel.conftest import run


def test_a_real_hook_does_not_inherit_agentdesk_variables(make_env, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "adh-canary"))
    monkeypatch.setenv("AGENTDESK_SOMETHING", "other-canary")
    dumped = tmp_path / "env.txt"
    dump = tmp_path / "dump.sh"
    dump.write_text(f'#!/bin/sh\nenv > "{dumped}"\ncat > /dev/null\n')
    dump.chmod(dump.stat().st_mode | stat.S_IXUSR)
    env = make_env(hooks=(Hook("look", "before", (str(dump),), "fs.read", 5.0),))
    env.provider.script(reply(tools=(("fs_list", {}),)), reply("ok"))
    a = env.kernel.agents.spawn("t")
    env.kernel.leases.grant(a.id, "fs.read", 300)

    async def send() -> None:
        env.kernel.agents.send(a.id, "go")
        await env.kernel.agents.wait(a.id)

    run(send())
    seen = dumped.read_text()
    assert "PATH=" in seen  # the rest of the environment is there
    assert "canary" not in seen and "AGENTDESK" not in seen


def test_hook_env_keeps_the_rest():
    env = hook_env({"PATH": "/usr/bin", "LANG": "C", "agentdesk_home": "/x", "AGENTDESK_HOME": "/x",
                    "GITHUB_TOKEN": "t"})
    assert env == {"PATH": "/usr/bin", "LANG": "C"}
    assert Path("/x") not in map(Path, env.values())
