"""An MCP tool's error is the server's own words: through the real loop (our stdio server, the real
Anthropic SDK against the loopback fake) it reaches the model wrapped in the agent's markers, is
recorded with an ``untrusted`` entry and taints the agent, like the server's results."""

from __future__ import annotations

import hashlib
import re

from kernel.leases.approver import Grant
from ledger import ToolError, UntrustedSeen
from tests.fakes import Text, ToolCall, Turn
from tests.providers.support import wire_conversation

from .conftest import McpEnv, stdio_server


def test_an_mcp_tool_error_is_wrapped_recorded_and_taints(mcp_kernel):
    async def body(env: McpEnv) -> None:
        env.approver.will(Grant(300.0))
        state = await env.ask(Turn(parts=(ToolCall("mcp__t__fail", {}, id="c1"),)), Turn(parts=(Text("ok"),)))
        assert state == "idle"
        _, items = wire_conversation("anthropic", env.srv.requests[1].body)
        [(call_id, text, is_error)] = [item[2:] for item in items if item[1] == "result"]
        assert call_id == "c1" and is_error
        m = re.fullmatch(r'<untrusted source="MCP server t, tool fail" id="(\w+)">\n(.*)\n</untrusted id="\1">',
                         text, re.S)
        assert m is not None, text
        # the server's own words (its SDK words a raised error as "Error executing tool fail")
        assert m.group(2) == "the MCP tool fail of t reported an error: Error executing tool fail"
        [error] = env.ledger.page(kind="error")
        assert isinstance(error, ToolError) and error.message == text
        [seen] = env.ledger.page(kind="untrusted")
        assert isinstance(seen, UntrustedSeen) and seen.cause == error.seq
        assert seen.source == "MCP server t, tool fail"
        assert seen.sha256 == hashlib.sha256(m.group(2).encode()).hexdigest()
        [agent] = env.kernel.agents.list()
        assert agent.tainted == "read untrusted content from MCP server t, tool fail"

    mcp_kernel([stdio_server()], body)
