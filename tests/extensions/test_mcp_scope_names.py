"""A tool's scope names it as written (``mcp.everything.get-sum``), so what a person types in
``--grant`` or a policy is the tool's own name; a name that would smuggle a dot or a wildcard into
the scope, or that a scope cannot hold, disables that tool with the reason (never a silent mangle)."""

from __future__ import annotations

import pytest

from kernel.cli.grants import parse_grants
from kernel.core.errors import RegistryError
from kernel.extensions.mcp_names import scope_name, server_scope
from kernel.extensions.mcp_tools import ListedTool, describe
from kernel.leases.lease import scope_covers
from kernel.tools.descriptor import ToolOutput
from kernel.tools.registry import SCOPE_RE
from kernel.trust.hook_config import policies_ok
from tests.fakes import Text, ToolCall, Turn

from .conftest import McpEnv, stdio_server


async def _never(_ctx, _input) -> ToolOutput:
    raise AssertionError("not run")


@pytest.mark.parametrize("tool", ["get-sum", "getTinyImage", "read_file", "9lives", "a-b_c-D"])
def test_a_scope_names_the_tool_as_written(tool):
    descriptor = describe("everything", ListedTool(tool, "d", {"type": "object"}), _never, 5.0)
    assert descriptor.scope == f"mcp.everything.{tool}" == scope_name("everything", tool)
    assert SCOPE_RE.match(descriptor.scope)
    assert scope_covers(server_scope("everything"), descriptor.scope)
    assert parse_grants([f"mcp.everything.{tool}=5m"], 60.0) == [(f"mcp.everything.{tool}", 300.0)]
    assert policies_ok({f"mcp.everything.{tool}": "ask"}, ("ask", "confirm", "deny"))


def test_a_hyphenated_server_keeps_its_name_in_scopes():
    assert scope_name("x-y", "echo") == "mcp.x-y.echo" and server_scope("x-y") == "mcp.x-y"


@pytest.mark.parametrize("tool, why", [
    ("read.file", "dot"),        # mcp.s.read.file would sit under a tool named read: its lease would cover it
    ("*", "wildcard"),
    ("all*", "wildcard"),
    ("ünïcode", "letters, digits"),
    ("a b/c", "letters, digits"),
    ("-lead", "letters, digits"),
    ("x" * 129, "at most 128"),
])
def test_a_name_a_scope_cannot_hold_disables_the_tool_with_a_reason(tool, why):
    with pytest.raises(RegistryError) as caught:
        describe("s", ListedTool(tool, "d", {"type": "object"}), _never, 5.0)
    assert caught.value.reason == "name" and why in caught.value.detail


def test_a_lease_on_the_hyphenated_tool_covers_its_calls(mcp_kernel):
    async def body(env: McpEnv) -> None:
        tools = {t.name: t for t in env.kernel.tools()}
        [dash] = [t for t in tools.values() if t.scope == "mcp.t.dup-name"]
        assert tools["mcp__t__dup_name"].scope == "mcp.t.dup_name"  # its neighbour keeps its own scope
        env.srv.script(Turn(parts=(ToolCall(dash.name, {}),)), Turn(parts=(Text("ok"),)))
        agent = env.kernel.agents.spawn("dash")
        env.kernel.leases.grant(agent.id, "mcp.t.dup-name", 300)
        env.kernel.agents.send(agent.id, "go")
        assert (await env.kernel.agents.wait(agent.id)).state == "idle"
        assert env.approver.requests == []  # the lease named as written covered the call
        [status] = env.kernel.extensions.mcp_status()
        assert status.disabled == ()

    mcp_kernel([stdio_server()], body)
