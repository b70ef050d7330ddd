"""``agentdesk ask`` in-process (no kernel serves the home) starts the home's enabled MCP servers, as the
kernel service does (kernel/extensions/setup.py), and stops them when it ends. A real ``ask`` subprocess,
the real stdio MCP test server (tests/extensions/mcp_test_server.py) and the loopback fake provider."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kernel.extensions.mcp_config import McpServerConfig, McpStore
from ledger import Ledger
from tests.extensions.conftest import SERVER
from tests.fakes import FakeProviderServer, Text, ToolCall as FakeCall, Turn
from tests.extensions.mcp_zygote import server_command

from .test_ask import anthropic_env, ask


@pytest.fixture
def srv():
    with FakeProviderServer() as s:
        yield s


def _gone(pid: int) -> bool:
    """The process ended (reaped, or a zombie waiting for its reaper)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def test_ask_in_process_starts_the_homes_mcp_servers_and_stops_them_at_the_end(srv, tmp_path, agentdesk_home):
    store = McpStore(agentdesk_home)
    command, args = server_command(SERVER)
    store.add(McpServerConfig("t", command=command, args=args, timeout_s=30))
    store.add(McpServerConfig("off", command=str(tmp_path / "never-started"), enabled=False))
    ws = tmp_path / "ws"
    ws.mkdir()
    srv.script(Turn(parts=(FakeCall("mcp__t__pid", {}, id="p1"),)), Turn(parts=(Text("it answered"),)))
    done = ask(["what is your pid", "--workspace", str(ws), "--grant", "mcp.t=5m"], agentdesk_home,
               anthropic_env(srv))
    assert done.returncode == 0, done.stderr
    assert "it answered" in done.stdout and "never-started" not in done.stderr
    assert "mcp.t=" not in done.stderr  # the grant names a scope this ask knows: no "unknown scope" warning
    tools = {t["name"] for t in srv.requests[0].body["tools"]}
    assert {"mcp__t__echo", "mcp__t__pid"} <= tools and not any(n.startswith("mcp__off__") for n in tools)

    ledger = Ledger(agentdesk_home / "ledger.db")
    try:
        [call] = [e for e in ledger.page(kind="tool", limit=50)]
        [result] = [e for e in ledger.page(kind="result", limit=50)]
    finally:
        ledger.close()
    assert call.tool == "mcp__t__pid" and result.cause == call.seq
    found = re.search(r">\n(\d+)\n</untrusted", result.content or "")  # the server's answer, in its markers
    assert found is not None, result.content
    pid = int(found.group(1))
    assert _gone(pid), f"the MCP server {pid} outlived ask"
