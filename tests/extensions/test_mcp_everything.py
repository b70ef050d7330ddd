"""The reference "everything" MCP server (npm ``@modelcontextprotocol/server-everything``) against the
kernel (issue 29): the kernel sees every tool the server offers a client that declares every capability
the SDK's client can (its elicitation, sampling and roots tools appear only for such a client), and those
tools work: from a terminal (``agentdesk ask`` in-process with the person typing at it, and once attached to
a kernel process), and a server's model request is on the ledger with its tokens charged to the calling
agent. The server's two task-based tools (trigger-sampling-request-async, trigger-elicitation-request-async)
appear only for a client declaring the experimental ``tasks`` capability, which the SDK's client does not
offer: the reference listing is the SDK client's with every capability it can declare (17 tools, measured
2026-12-03, of its 19; a client declaring none sees 13). The desktop's side is
tests/desktop/test_mcp_everything.py. One server per module (tests/extensions/everything.py), over
streamable HTTP: each kernel is its own session.
"""

from __future__ import annotations

import json
from pathlib import Path


from kernel.extensions.mcp_config import McpServerConfig, McpStore
from kernel.leases.approver import Grant
from ledger import USER, Ledger, McpElicit
from tests.cli.inproc import agentdesk
from tests.fakes import FakeProviderServer, Text, ToolCall, Turn, Usage

from .conftest import McpEnv
from .everything import ev


async def reference_tools(url: str) -> set[str]:
    """What the server lists for the SDK's own client declaring elicitation, sampling and roots."""
    import mcp
    import mcp_types as types

    async def sampled(_context: object, _params: object) -> types.CreateMessageResult:
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="-"), model="-")

    async def elicited(_context: object, _params: object) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async def rooted(_context: object) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[])

    async with mcp.Client(url, sampling_callback=sampled, elicitation_callback=elicited,
                          list_roots_callback=rooted) as client:
        names: set[str] = set()
        cursor = None
        while True:
            page = await client.list_tools(cursor=cursor)
            names |= {t.name for t in page.tools}
            cursor = page.next_cursor
            if not cursor:
                return names


def test_the_kernel_sees_every_tool_and_a_servers_model_request_is_billed_to_the_calling_agent(everything, mcp_kernel):
    async def body(env: McpEnv) -> None:
        assert env.problems == {}
        offered = await reference_tools(everything)
        assert {"trigger-elicitation-request", "trigger-sampling-request", "get-roots-list"} <= offered
        [status] = env.kernel.extensions.mcp_status()
        assert status.state == "connected" and status.disabled == ()
        assert set(status.tools) == {ev(name) for name in offered}  # every one a fully capable client is offered
        env.approver.will(Grant(300.0), Grant(300.0))
        state = await env.ask(Turn(parts=(ToolCall(ev("trigger-sampling-request"), {"prompt": "Say hi", "maxTokens": 40},
                                                   id="s1"),)),
                              Turn(parts=(Text("hi from the model"),), usage=Usage(11, 4)),  # the server's request
                              Turn(parts=(Text("done"),)))
        assert state == "idle"
        [agent] = env.kernel.agents.list()
        assert [r.scope for r in env.approver.requests] == ["mcp.ev.trigger-sampling-request", "mcp.ev.sampling"]
        asked = json.dumps(env.srv.requests[1].body)  # the server's words reached the model as quoted material
        assert "Say hi" in asked and "untrusted" in asked
        [sampled] = [e for e in env.ledger.page(kind="request") if e.reason == "mcp.ev.sampling"]
        assert (sampled.actor, sampled.input_tokens, sampled.output_tokens) == (agent.id, 11, 4)
        assert (agent.input_tokens, agent.output_tokens) == (10 + 11 + 10, 5 + 4 + 5)  # the agent paid for it
        [result] = [e for e in env.ledger.page(kind="result") if e.call == "s1"]
        assert "hi from the model" in str(result.content)
        # roots: each caller's own workspace, though the server caches what it was told (it asks again on the
        # notice, and the call waits for that: sent at once, it was answered from the cache, the other folder)
        other = env.workspace.parent / "other"
        other.mkdir()
        for call, where in (("r1", env.workspace), ("r2", other.resolve())):
            env.approver.will(Grant(300.0))
            env.srv.script(Turn(parts=(ToolCall(ev("get-roots-list"), {}, id=call),)), Turn(parts=(Text("ok"),)))
            rooted = env.kernel.agents.spawn(call, workspace=str(where))
            env.kernel.agents.send(rooted.id, "go")
            assert (await env.kernel.agents.wait(rooted.id)).state == "idle"
            [listed] = [e for e in env.ledger.page(kind="result") if e.call == call]
            assert "(1 total)" in str(listed.content) and where.as_uri() in str(listed.content), listed.content

    mcp_kernel([McpServerConfig("ev", url=everything, timeout_s=30)], body)


def test_at_a_terminal_the_person_answers_the_servers_form_and_sampling_and_roots_work(everything, tmp_path,
                                                                                       agentdesk_home: Path):
    McpStore(agentdesk_home).add(McpServerConfig("ev", url=everything, timeout_s=30))
    ws = tmp_path / "ws"
    ws.mkdir()
    # allow the call (an outward action: confirmed every time); the form: a name, agree, six fields as offered
    # (their defaults), its choices (a titled one offered again after a name that is neither a value nor a
    # title, then answered by its title; a multiple one by a title and a value), the last (a legacy titled enum)
    # by its title; accept; then allow the sampling tool's call
    typed = ("y\n" + "Grace Hopper\ny\n" + "\n" * 6 + "Joey\nPiano, Drums\nBatman\nWonder Woman\nSalmon, fish-3\n"
             + "Birds\n" + "a\n" + "y\n")
    with FakeProviderServer(expected_key="test-key") as srv:
        srv.script(Turn(parts=(ToolCall(ev("trigger-elicitation-request"), {}, id="e1"),)),
                   Turn(parts=(ToolCall(ev("trigger-sampling-request"), {"prompt": "Say hi", "maxTokens": 40},
                                        id="s1"),)),
                   Turn(parts=(Text("hello from the model"),), usage=Usage(9, 2)),
                   Turn(parts=(ToolCall(ev("get-roots-list"), {}, id="r1"),)),
                   Turn(parts=(Text("all done"),)))
        done = agentdesk(["ask", "try the server", "--workspace", str(ws), "--grant", "mcp.ev=5m"], agentdesk_home,
                         {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.anthropic_base_url},
                         stdin=typed, tty=True)
        assert done.returncode == 0, done.stderr
        srv.assert_done()
    assert "all done" in done.stdout
    assert "The MCP server ev asks you" in done.stderr and "Please provide inputs" in done.stderr
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        results = {e.call: str(e.content) for e in ledger.page(kind="result", limit=50)}
        [asked] = ledger.page(kind="mcp.elicit")
        [sampled] = [e for e in ledger.page(kind="request", limit=50) if e.reason == "mcp.ev.sampling"]
    assert isinstance(asked, McpElicit) and (asked.actor, asked.action) == (USER, "accept")
    assert "Name: Grace Hopper" in results["e1"] and "Agreed to terms: true" in results["e1"]
    assert "Favorite Integer: 42" in results["e1"]  # a field left empty: the server's default was sent
    sent = results["e1"].replace("\\n", "\n")
    for chosen in ('"untitledSingleSelectEnum": "Joey"', '"titledSingleSelectEnum": "hero-3"', '"Piano"', '"fish-2"',
                   '"fish-3"', '"legacyTitledEnum": "pet-3"'):
        assert chosen in sent, sent  # the choices the server offered (an enum, titled options, multiple) as chosen
    assert "that is not a string one of Superman (hero-1), Green Lantern (hero-2), Wonder Woman (hero-3)" \
        in done.stderr
    assert "hello from the model" in results["s1"] and (sampled.input_tokens, sampled.output_tokens) == (9, 2)
    assert ws.resolve().as_uri() in results["r1"]  # the roots: the agent's workspace


def test_attached_to_the_kernel_service_the_terminal_answers_the_servers_form(everything, tmp_path,
                                                                             agentdesk_home: Path):
    """``agentdesk ask`` attached to a running kernel: the question travels from the kernel process to this
    terminal and the person's answer back through the facade."""
    from tests.service.conftest import KernelProcess, clean_env

    ws = tmp_path / "ws"
    ws.mkdir()
    typed = "y\n" + "Ada Lovelace\nn\n" + "\n" * 11 + "a\n"  # allow the call; a name, disagree, the rest offered
    with FakeProviderServer(expected_key="test-key") as srv:
        provider = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.anthropic_base_url,
                    "AGENTDESK_KEYRING": "off"}
        kernel = KernelProcess(agentdesk_home, clean_env(agentdesk_home, provider)).start()
        try:  # added to the running kernel, as a person would: it answers once the server is connected
            added = agentdesk(["mcp", "add", "ev", "--url", everything, "--timeout", "30"], agentdesk_home, provider)
            assert added.returncode == 0 and "connected" in added.stdout, added.stderr
            srv.script(Turn(parts=(ToolCall(ev("trigger-elicitation-request"), {}, id="e1"),)),
                       Turn(parts=(Text("all done"),)))
            done = agentdesk(["ask", "fill it in", "--workspace", str(ws), "--grant", "mcp.ev=5m"], agentdesk_home,
                             provider, stdin=typed, tty=True)
        finally:
            kernel.stop()
        assert done.returncode == 0, done.stderr
        srv.assert_done()
    assert "all done" in done.stdout and "The MCP server ev asks you" in done.stderr
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        [result] = [e for e in ledger.page(kind="result", limit=50) if e.call == "e1"]
        [asked] = ledger.page(kind="mcp.elicit")
    assert "Name: Ada Lovelace" in str(result.content) and "Agreed to terms: false" in str(result.content)
    assert isinstance(asked, McpElicit) and (asked.actor, asked.action) == (USER, "accept")
