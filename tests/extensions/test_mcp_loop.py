"""MCP tools through the real agent loop: a real stdio server (our own, written with the ``mcp`` SDK)
and the loopback fake provider through the real Anthropic SDK. List, call, lease scopes, timeout,
crash and restart, a changed list revoking a lease, output capped, untrusted."""

from __future__ import annotations

import re
from dataclasses import replace

from kernel.leases.approver import Grant
from kernel.extensions.mcp_tools import OUTPUT_MAX_CHARS
from ledger import LeaseRevoke, ToolCall as ToolCallEntry, ToolError, ToolResult
from tests.fakes import Text, ToolCall, Turn
from tests.providers.support import wire_conversation

from .conftest import McpEnv, stdio_server


def _results(env: McpEnv, request: int) -> list[tuple[str, str, bool]]:
    """(call id, text, is_error) of the results the model read in that request, markers taken off
    (an MCP server's output is untrusted: every success must arrive wrapped)."""
    _, items = wire_conversation("anthropic", env.srv.requests[request].body)
    return [(call_id, text if is_error else _unwrapped(text), is_error)
            for (call_id, text, is_error) in (item[2:] for item in items if item[1] == "result")]


def _unwrapped(text: str) -> str:
    m = re.fullmatch(r'<untrusted source="MCP server [^"]*" id="(\w+)">\n?(.*?)\n?</untrusted id="\1">', text, re.S)
    assert m is not None, f"not wrapped as untrusted: {text[:200]!r}"
    return m.group(2)


def test_tools_are_listed_with_scopes_risks_and_untrusted_output(mcp_kernel):
    async def body(env: McpEnv) -> None:
        assert env.problems == {}
        tools = {t.name: t for t in env.kernel.tools()}
        echo, shout, crash = tools["mcp__t__echo"], tools["mcp__t__shout"], tools["mcp__t__crash"]
        assert (echo.scope, echo.risk, echo.trusted) == ("mcp.t.echo", "R2", False)  # read-only hint: R2
        assert (shout.scope, shout.risk) == ("mcp.t.shout", "R3")  # no hints: unknown, so R3
        assert crash.risk == "R3"  # destructive
        assert "fs_read" in tools  # the built-in tools are still there
        # dup-name and dup_name sanitise to one name: the changed one keeps a hash of the original
        statuses = {s.name: s for s in env.kernel.extensions.mcp_status()}
        t = statuses["t"]
        assert t.state == "connected" and t.protocol and t.disabled == ()
        dups = [name for name in t.tools if name.startswith("mcp__t__dup")]
        assert len(dups) == 2 and "mcp__t__dup_name" in dups
        # servers x-y and x_y meet on the wire: the second to list is refused, tool by tool, never overwritten
        first, second = sorted((statuses["x-y"], statuses["x_y"]), key=lambda s: len(s.tools), reverse=True)
        assert "mcp__x_y__echo" in first.tools and second.tools == ()
        assert second.disabled and all("collides with another tool" in why for _, why in second.disabled)
        assert tools["mcp__x_y__echo"].scope == f"mcp.{first.name}.echo"  # each server's scope as written

    mcp_kernel([stdio_server(), stdio_server("x-y"), stdio_server("x_y")], body)


def test_a_call_goes_through_the_loop_under_its_own_scope(mcp_kernel):
    async def body(env: McpEnv) -> None:
        env.approver.will(Grant(300.0))
        state = await env.ask(Turn(parts=(ToolCall("mcp__t__echo", {"text": "hi"}, id="c1"),)),
                              Turn(parts=(Text("done"),)))
        assert state == "idle"
        assert [r.scope for r in env.approver.requests] == ["mcp.t.echo"]
        [(call_id, text, is_error)] = _results(env, 1)
        assert call_id == "c1" and not is_error and "echo: hi" in text
        [call] = env.ledger.page(kind="tool")
        assert isinstance(call, ToolCallEntry) and (call.tool, call.scope) == ("mcp__t__echo", "mcp.t.echo")
        [result] = env.ledger.page(kind="result")
        assert isinstance(result, ToolResult) and result.output["server"] == "t"

    mcp_kernel([stdio_server()], body)


def test_a_lease_on_the_server_covers_all_its_tools(mcp_kernel):
    async def body(env: McpEnv) -> None:
        # shout (R3) goes first: once echo's untrusted output is in, the agent is tainted and every R3 call
        # would need a one-off confirmation that no lease satisfies
        env.srv.script(Turn(parts=(ToolCall("mcp__t__shout", {"text": "b"}), ToolCall("mcp__t__echo", {"text": "a"}))),
                       Turn(parts=(ToolCall("mcp__t__big", {}),)), Turn(parts=(Text("ok"),)))
        # shout carries no read-only hint, so it is R3, whose default policy (confirm) no lease
        # satisfies; a policy naming the server lets its lease cover them
        env.kernel.update_settings(replace(env.kernel.settings, policies={"mcp.t": "ask"}))
        agent = env.kernel.agents.spawn("scoped")
        env.kernel.leases.grant(agent.id, "mcp.t", 300)
        env.kernel.agents.send(agent.id, "go")
        assert (await env.kernel.agents.wait(agent.id)).state == "idle"
        assert env.approver.requests == []  # nothing asked: mcp.t covers mcp.t.echo and mcp.t.shout
        first = _results(env, 1)
        assert [r[1] for r in first] == ["B", "echo: a"]
        (_, big, is_error) = _results(env, 2)[-1]
        assert not is_error and len(big) <= OUTPUT_MAX_CHARS and "characters; the middle is cut" in big

    mcp_kernel([stdio_server()], body)


def test_a_hung_call_times_out_and_the_server_keeps_working(mcp_kernel):
    async def body(env: McpEnv) -> None:
        env.srv.script(Turn(parts=(ToolCall("mcp__t__hang", {}),)), Turn(parts=(ToolCall("mcp__t__echo", {"text": "x"}),)),
                       Turn(parts=(Text("ok"),)))
        agent = env.kernel.agents.spawn("waits")
        env.kernel.leases.grant(agent.id, "mcp.t", 300)
        env.kernel.agents.send(agent.id, "go")
        assert (await env.kernel.agents.wait(agent.id)).state == "idle"
        [(_, text, is_error)] = _results(env, 1)
        assert is_error and "timed out after 1 s" in text
        (_, text, is_error) = _results(env, 2)[-1]
        assert not is_error and text == "echo: x"
        [status] = env.kernel.extensions.mcp_status()
        assert status.state == "connected"

    mcp_kernel([stdio_server(timeout_s=1.0)], body)


def test_a_crashed_server_fails_clearly_and_is_restarted_on_the_next_call(mcp_kernel):
    async def body(env: McpEnv) -> None:
        env.srv.script(Turn(parts=(ToolCall("mcp__t__crash", {}),)),
                       Turn(parts=(ToolCall("mcp__t__echo", {"text": "back"}),)), Turn(parts=(Text("ok"),)))
        env.kernel.update_settings(replace(env.kernel.settings, policies={"mcp.t": "ask"}))  # crash is R3
        agent = env.kernel.agents.spawn("crashes")
        env.kernel.leases.grant(agent.id, "mcp.t", 300)
        env.kernel.agents.send(agent.id, "go")
        assert (await env.kernel.agents.wait(agent.id)).state == "idle"
        [(_, text, is_error)] = _results(env, 1)
        assert is_error and "the MCP server t stopped while calling crash" in text
        assert "started again on the next call" in text
        (_, text, is_error) = _results(env, 2)[-1]
        assert not is_error and text == "echo: back"
        errors = [e for e in env.ledger.page(kind="error") if isinstance(e, ToolError)]
        assert [e.tool for e in errors] == ["mcp__t__crash"]

    mcp_kernel([stdio_server()], body)


def test_a_changed_tool_list_revokes_leases_on_what_went(mcp_kernel):
    async def body(env: McpEnv) -> None:
        env.srv.script(Turn(parts=(ToolCall("mcp__t__drop_extra", {}),)),
                       Turn(parts=(ToolCall("mcp__t__extra", {}),)), Turn(parts=(Text("ok"),)))
        agent = env.kernel.agents.spawn("changes")
        on_extra = env.kernel.leases.grant(agent.id, "mcp.t.extra", 300)
        on_echo = env.kernel.leases.grant(agent.id, "mcp.t.echo", 300)
        env.kernel.leases.grant(agent.id, "mcp.t.drop_extra", 300)
        env.kernel.agents.send(agent.id, "go")
        assert (await env.kernel.agents.wait(agent.id)).state == "idle"
        live = {lease.id for lease in env.kernel.leases.list(agent.id)}
        assert on_extra.id not in live and on_echo.id in live
        [revoke] = [e for e in env.ledger.page(kind="lease.revoke") if isinstance(e, LeaseRevoke)]
        assert revoke.lease == on_extra.id and "the MCP server t changed or removed its tools: extra" in revoke.reason
        assert "mcp__t__extra" not in {t.name for t in env.kernel.tools()}
        (_, text, is_error) = _results(env, 2)[-1]  # the model still asks for it: an unknown tool now
        assert is_error and "unknown tool 'mcp__t__extra'" in text

    mcp_kernel([stdio_server()], body)


def test_a_server_that_cannot_start_is_a_reason_not_a_crash(mcp_kernel, tmp_path):
    from kernel.extensions.mcp_config import McpServerConfig

    missing = McpServerConfig("gone", command=str(tmp_path / "no-such-server"), timeout_s=10)

    async def body(env: McpEnv) -> None:
        assert set(env.problems) == {"gone"} and "gone" in env.problems["gone"]
        [status] = env.kernel.extensions.mcp_status()
        assert status.state == "failed" and status.tools == ()

    mcp_kernel([missing], body)
