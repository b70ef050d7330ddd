"""A reply far over the output cap is cut at the cap as it streams from the server, and says so, instead of
being read whole (a 64 MB line took past any timeout) — a real stdio server through the real loop."""

from __future__ import annotations

import re

from tests.fakes import Text, ToolCall, Turn

from .conftest import McpEnv, stdio_server
from .test_mcp_loop import _results


def test_a_32_mb_result_is_cut_at_the_cap_as_it_streams_and_says_so(mcp_kernel):
    async def body(env: McpEnv) -> None:
        env.srv.script(Turn(parts=(ToolCall("mcp__t__huge", {"mb": 32}, id="h1"),)),
                       Turn(parts=(ToolCall("mcp__t__echo", {"text": "after"}, id="e1"),)), Turn(parts=(Text("ok"),)))
        agent = env.kernel.agents.spawn("huge")
        env.kernel.leases.grant(agent.id, "mcp.t", 300)
        env.kernel.agents.send(agent.id, "go")
        assert (await env.kernel.agents.wait(agent.id)).state == "idle"
        [(call_id, text, is_error)] = _results(env, 1)
        assert call_id == "h1" and not is_error, text
        assert text.startswith("yyyy") and "cut at the cap as it streamed" in text
        size = int(re.search(r"the server's reply was ([\d,]+) bytes", text).group(1).replace(",", ""))
        assert size > 32 << 20  # its whole size, though only the cap was kept
        (_, after, is_error) = _results(env, 2)[-1]
        assert not is_error and after == "echo: after"  # the connection is still in step after the cut

    mcp_kernel([stdio_server(timeout_s=60.0)], body)


def test_the_line_reader_keeps_lines_and_cuts_only_the_oversized_one():
    from kernel.extensions.mcp_stdio import LINE_MAX_BYTES, LineReader, Oversized

    reader = LineReader(limit=10)
    out = reader.feed(b'{"a":1}\n{"id":7,"x":"') + reader.feed(b"z" * 50) + reader.feed(b'"}\n{"b":2}\n')
    assert out[0] == b'{"a":1}' and out[2] == b'{"b":2}'
    cut = out[1]
    assert isinstance(cut, Oversized) and cut.head == b'{"id":7,"x' and cut.size == len(b'{"id":7,"x":"') + 52
    assert cut.tail.endswith(b'zz"}') and LINE_MAX_BYTES >= 1 << 20
