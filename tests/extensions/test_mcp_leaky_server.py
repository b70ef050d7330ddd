"""An MCP server's own secrets (the env values and headers saved with it) are held like provider
keys: a hostile server that answers with its token does not put the token in the ledger."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from pathlib import Path

from kernel.core.clock import ManualClock
from kernel.extensions.mcp_config import McpSecrets, McpServerConfig
from kernel.compose import build_kernel
from kernel.config.settings import Settings
from ledger import Ledger
from tests.fakes import FakeProviderServer, Text, ToolCall, Turn

TOKEN = "mcp-tok-7Hq2Lx9Wv4Zr8Kp3"
LEAKY = Path(__file__).with_name("mcp_leaky_server.py")


def test_a_server_answering_with_its_token_does_not_put_it_in_the_ledger(tmp_path: Path, agentdesk_home: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    ledger = Ledger(tmp_path / "ledger.db", clock=ManualClock().now)
    config = McpServerConfig("leaky", command=sys.executable, args=(str(LEAKY),), timeout_s=30.0)
    with FakeProviderServer(expected_key="test-key") as srv:
        async def main() -> str:
            from kernel.providers.anthropic import AnthropicProvider

            provider = AnthropicProvider(api_key="test-key", base_url=srv.anthropic_base_url, timeout_s=20.0)
            kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws)), providers=lambda _n: provider)
            try:
                problems = await kernel.extensions.start_mcp([(config, McpSecrets({"LEAKY_API_TOKEN": TOKEN}, {}))],
                                                  log_dir=tmp_path / "logs")
                assert problems == {}
                srv.script(Turn(parts=(ToolCall("mcp__leaky__whoami", {}),)), Turn(parts=(Text("ok"),)))
                agent = kernel.agents.spawn("asks")
                kernel.leases.grant(agent.id, "mcp.leaky", 300)
                kernel.agents.send(agent.id, "go")
                return (await kernel.agents.wait(agent.id)).state
            finally:
                await kernel.aclose()
                await provider.aclose()

        try:
            assert asyncio.run(asyncio.wait_for(main(), timeout=120)) == "idle"
        finally:
            ledger.close()
    with sqlite3.connect(tmp_path / "ledger.db") as db:
        text = "\n".join(str(tuple(r)) for r in db.execute("SELECT * FROM entries"))
    assert "authenticated with token" in text  # the call ran and its result was recorded
    assert TOKEN not in text
