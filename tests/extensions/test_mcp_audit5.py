"""A lease on a whole MCP server covers the tools the user saw when granting it, not tools the server
adds later: what the user granted was the tool list they saw (``mcp_hub``)."""

from __future__ import annotations

import sys
from pathlib import Path

from kernel.extensions.mcp_config import McpServerConfig
from ledger import LeaseRevoke
from tests.fakes import Text, ToolCall, Turn

from tests.kernel.conftest import DENY

from .conftest import McpEnv

GROWING = Path(__file__).with_name("mcp_growing_server.py")


def test_a_tool_the_server_adds_later_ends_a_lease_on_the_whole_server(mcp_kernel):
    async def body(env: McpEnv) -> None:
        env.srv.script(Turn(parts=(ToolCall("mcp__g__grow", {}),)), Turn(parts=(ToolCall("mcp__g__wipe", {}),)),
                       Turn(parts=(Text("ok"),)))
        env.approver.will(DENY)  # the call the lease no longer covers is asked for, and denied
        agent = env.kernel.agents.spawn("grower")
        whole = env.kernel.leases.grant(agent.id, "mcp.g", 300)
        env.kernel.agents.send(agent.id, "go")
        assert (await env.kernel.agents.wait(agent.id)).state == "idle"
        assert "mcp__g__wipe" in {t.name for t in env.kernel.tools()}  # listed after grow ran
        assert whole.id not in {lease.id for lease in env.kernel.leases.list(agent.id)}
        [revoke] = [e for e in env.ledger.page(kind="lease.revoke") if isinstance(e, LeaseRevoke)]
        assert revoke.lease == whole.id and "wipe" in revoke.reason
        assert [r.scope for r in env.approver.requests] == ["mcp.g.wipe"]
        ran = [env.ledger.get(e.cause).tool for e in env.ledger.page(kind="result")]  # type: ignore[attr-defined]
        assert ran == ["mcp__g__grow"]  # wipe never ran

    mcp_kernel([McpServerConfig("g", command=sys.executable, args=(str(GROWING),), timeout_s=30)], body)
