"""``agentdesk ps`` says an agent answers on a fallback model the way the process table does (issue 25):
``[degraded: why]`` on its line and ``degraded`` in ``--json``; an archived agent that a fallback answered
says so under ``--all``. A kernel served in process on the home's socket (a thread of its own), the command
run in process: no kernel process, no interpreter start."""

from __future__ import annotations

import json
from pathlib import Path

from kernel.config.home import socket_path
from kernel.core.errors import ProviderError
from kernel.providers.scripted import ScriptedTurn, reply
from tests.cli.inproc import agentdesk

from .conftest import ThreadServer

WHY = "anthropic overloaded \u2014 answering with anthropic:claude-haiku-4-5"


def test_ps_says_degraded_like_the_process_table(tmp_path: Path, agentdesk_home: Path) -> None:
    ts = ThreadServer(tmp_path, socket_path(agentdesk_home))
    try:
        down = ProviderError("anthropic", "overloaded", "HTTP 529: Overloaded", status=529)
        ts.provider.script(ScriptedTurn((down,)), reply("from the fallback"), reply("plain"))

        async def ask() -> tuple[str, str]:
            k = ts.kernel
            routed = k.agents.spawn("routed", provider="anthropic", model="claude-sonnet-4-5",
                                    fallbacks=("anthropic:claude-haiku-4-5",))
            plain = k.agents.spawn("plain", provider="anthropic", model="claude-sonnet-4-5", fallbacks=())
            for agent in (routed, plain):
                k.agents.send(agent.id, "go")
                await k.agents.wait(agent.id)
            return routed.id, plain.id

        routed, plain = ts.call(ask())
        listed = agentdesk(["ps"], agentdesk_home)
        lines = {line.split()[0]: line for line in listed.stdout.splitlines()[1:]}
        assert listed.returncode == 0 and lines[routed].endswith(f"[degraded: {WHY}]")
        assert "degraded" not in lines[plain]
        rows = {r["id"]: r for r in map(json.loads, agentdesk(["ps", "--json"], agentdesk_home).stdout.splitlines())}
        assert rows[routed]["degraded"] == WHY and rows[plain]["degraded"] == ""

        async def archive() -> None:
            ts.kernel.agents.archive(routed)

        ts.call(archive())
        everything = agentdesk(["ps", "--all", "--json"], agentdesk_home).stdout.splitlines()
        [gone] = [r for r in map(json.loads, everything) if r["id"] == routed]
        assert gone["state"] == "archived" and gone["served"] == ["anthropic:claude-haiku-4-5"]
        words = agentdesk(["ps", "--all"], agentdesk_home).stdout
        assert "[answered by anthropic:claude-haiku-4-5]" in words
        ts.provider.assert_done()
    finally:
        ts.close()
