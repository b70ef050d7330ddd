"""``agentdesk ask "/server:prompt a=b"``: an MCP server's prompt is the question (its messages join the first
message, untrusted); a prompt missing a required argument is bad usage with the argument named. In process,
with the real stdio server of tests/extensions/mcp_resource_server.py and the loopback fake provider."""

from __future__ import annotations

import sys

import pytest

from kernel.extensions.mcp_config import McpServerConfig, McpStore
from ledger import Ledger, UntrustedSeen, UserTurn
from tests.extensions.test_mcp_resources import RESOURCE_SERVER
from tests.fakes import FakeProviderServer, Text, Turn

from .test_ask import anthropic_env, ask


@pytest.fixture
def srv():
    with FakeProviderServer() as s:
        yield s


def test_ask_with_a_prompt_command_sends_the_servers_prompt_and_names_a_missing_argument(srv, tmp_path,
                                                                                       agentdesk_home):
    McpStore(agentdesk_home).add(McpServerConfig("r", command=sys.executable, args=(str(RESOURCE_SERVER),),
                                                 timeout_s=30))
    ws = tmp_path / "ws"
    ws.mkdir()
    missing = ask(["/r:review tone=stern", "--workspace", str(ws)], agentdesk_home, anthropic_env(srv))
    assert missing.returncode == 2 and "/r:review needs path=…" in missing.stderr, missing.stderr
    assert "Traceback" not in missing.stderr
    srv.script(Turn(parts=(Text("reviewed"),)))
    done = ask(["/r:review path=notes.md", "--workspace", str(ws)], agentdesk_home, anthropic_env(srv))
    assert done.returncode == 0, done.stderr
    sent = srv.requests[0].body["messages"][-1]["content"]
    text = sent if isinstance(sent, str) else "".join(b.get("text", "") for b in sent)
    assert '<untrusted source="MCP server r, prompt review"' in text
    assert "Please review notes.md in a kind tone." in text
    ledger = Ledger(agentdesk_home / "ledger.db")
    try:
        assert any("/r:review path=notes.md" in e.text for e in ledger.page(kind="message") if isinstance(e, UserTurn))
        assert any(e.source == "MCP server r, prompt review" for e in ledger.page(kind="untrusted")
                   if isinstance(e, UntrustedSeen))
    finally:
        ledger.close()
