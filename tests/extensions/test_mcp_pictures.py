"""An MCP tool's pictures reach the model: ``image`` content and an embedded image resource, fitted like any
picture, untrusted (wrapped, the agent tainted); a broken one is named in the text, never a failed call."""

from __future__ import annotations

from kernel.leases.approver import Grant
from ledger import ToolResult
from tests.fakes import Text, ToolCall, Turn

from .conftest import McpEnv, stdio_server


def test_pictures_from_an_mcp_tool_reach_the_model_untrusted(mcp_kernel):
    async def body(env: McpEnv) -> None:
        env.approver.will(Grant(300.0))
        state = await env.ask(Turn(parts=(ToolCall("mcp__t__picture", {}, id="c1"),)), Turn(parts=(Text("seen"),)))
        assert state == "idle"
        sent = env.srv.requests[1].images
        assert [(i.role, i.width, i.height) for i in sent] == [("tool", 1313, 875), ("tool", 40, 30)]
        assert env.srv.image_rejections == []
        [result] = env.ledger.page(kind="result")
        assert isinstance(result, ToolResult) and len(result.images) == 2
        assert all(i["origin"] == "mcp" and i["untrusted"] for i in result.images)
        assert "[image 1: 1313\u00d7875 png, shown to you]" in result.content
        assert "not shown: the file is not a readable image" in result.content
        assert result.content.startswith("<untrusted")
        assert env.ledger.page(kind="untrusted")

    mcp_kernel([stdio_server()], body)
