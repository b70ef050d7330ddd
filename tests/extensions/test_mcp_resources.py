"""An MCP server's resources through a real server (tests/extensions/mcp_resource_server.py): the model follows a
``resource_link`` with ``mcp__<server>__read_resource`` under ``mcp.<server>.resources``; what it reads is untrusted,
capped, pictures shown; a URI the server never offered is refused before the server is asked."""

from __future__ import annotations

import sys
from pathlib import Path

from kernel.extensions.mcp_config import McpServerConfig
from kernel.extensions.mcp_resources import template_matches, uri_problem
from kernel.leases.approver import Grant
from ledger import ToolError, ToolResult
from tests.fakes import Text, ToolCall, Turn

from .conftest import McpEnv

RESOURCE_SERVER = Path(__file__).with_name("mcp_resource_server.py")


def resource_server(name: str = "r") -> McpServerConfig:
    return McpServerConfig(name, command=sys.executable, args=(str(RESOURCE_SERVER),), timeout_s=30.0)


def test_the_model_follows_a_resource_link_and_reads_resources_under_the_servers_read_scope(mcp_kernel):
    async def body(env: McpEnv) -> None:
        tools = {t.name: t for t in env.kernel.tools()}
        reader = tools["mcp__r__read_resource"]
        assert (reader.scope, reader.risk, reader.trusted) == ("mcp.r.resources", "R2", False)
        env.approver.will(Grant(300.0), Grant(300.0))
        read = "mcp__r__read_resource"
        state = await env.ask(
            Turn(parts=(ToolCall("mcp__r__link", {}, id="c1"),)),
            Turn(parts=(ToolCall(read, {"uri": "note://day/monday"}, id="c2"),
                        ToolCall(read, {"uri": "note://today"}, id="c3"),
                        ToolCall(read, {"uri": "file:///etc/passwd"}, id="c4"),
                        ToolCall(read, {"uri": "pic://dot"}, id="c5"),
                        ToolCall(read, {"uri": "note://big"}, id="c6"))),
            Turn(parts=(Text("read"),)))
        assert state == "idle"
        assert [r.scope for r in env.approver.requests] == ["mcp.r.link", "mcp.r.resources"]
        link = next(e for e in env.ledger.page(kind="result") if "two notes" in e.content)
        assert ('[resource link note://day/monday (monday): read it with the tool mcp__r__read_resource, '
                '{"uri": "note://day/monday"}]') in link.content
        contents = [e.content for e in env.ledger.page(kind="result") if isinstance(e, ToolResult)]
        monday = next(c for c in contents if "the note for monday" in c)
        assert monday.startswith('<untrusted source="MCP server r, resource note://day/monday"')
        assert any("today: water the plants" in c for c in contents)
        big = next(c for c in contents if "bbbb" in c)
        assert len(big) < 120_000  # capped like a tool result
        [picture] = [e for e in env.ledger.page(kind="result") if isinstance(e, ToolResult) and e.images]
        assert picture.images[0]["untrusted"] and "shown to you" in picture.content
        [refused] = [e for e in env.ledger.page(kind="error") if isinstance(e, ToolError)]
        assert "does not offer the resource file:///etc/passwd" in refused.message
        assert env.srv.requests[2].images  # the picture reached the model

    mcp_kernel([resource_server()], body)


def test_resource_uris_and_templates_are_checked_as_hostile_text():
    assert template_matches("note://day/{day}", "note://day/monday")
    assert not template_matches("note://day/{day}", "note://day/monday/../../etc")
    assert template_matches("file:///{+path}", "file:///a/b/c.txt")
    assert not template_matches("note://{x}", "other://y")
    assert uri_problem("note://today") is None
    assert uri_problem("no scheme") is not None
    assert uri_problem("note://a\nb") is not None
    assert uri_problem("x:" + "a" * 3000) is not None
