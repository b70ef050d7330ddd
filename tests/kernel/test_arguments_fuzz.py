"""Property: nothing a model sends as tool arguments makes its agent fail, for every built-in tool.

Arbitrary JSON values (None, booleans, huge integers, NaN and infinities,
text with lone surrogates, lists and objects, nesting past the kernel's
limit), values that are not objects at all, objects shaped like the tool's
input with arbitrary values in them, and raw argument text parsed the way
the adapters parse it, go through the real agent loop (real ledger, real
tools in a throwaway workspace, leases granted up front so the tools really
run; a strict scripted provider), over a workspace holding text, a binary
file, a name that is not UTF-8 and a link out. After each example the agent is idle,
every call got a result the model saw, the ledger holds an outcome for each
call, and the next request encodes for every provider's request builder
and for the provider host's wire format.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from kernel.leases.approver import Denial, LeaseRequest
from kernel.core.clock import ManualClock
from kernel.compose import build_kernel
from kernel.core.messages import ToolResultPart, ToolUse
from kernel.providers import anthropic, gemini, openai_chat, openai_responses
from kernel.providers.base import ProviderRequest, StreamEnd, TextChunk, ToolCallReady, UsageReport
from kernel.providers.failures import parse_arguments
from kernel.providers.host_protocol import encode_message
from kernel.providers.scripted import ScriptedProvider, ScriptedTurn, reply
from kernel.config.settings import Settings
from kernel.tools.fs import FS_TOOLS
from kernel.automations.tool import SCHEMA as AUTOMATION_SCHEMA
from kernel.tools.shell import INPUT_SCHEMA as SHELL_SCHEMA
from kernel.tools.web.tools import FETCH_INPUT, SEARCH_INPUT
from ledger import Ledger

from .conftest import run

# Every built-in tool: the file tools, shell_exec, the web tools and automation_create (each episode checks the
# kernel registers exactly these; automation_create is always a one-off confirmation, which DenyTheRest refuses,
# or the kernel refuses its definition before anyone is asked).
SCHEMAS = {**{d.name: d.input_schema for d in FS_TOOLS}, "shell_exec": SHELL_SCHEMA,
           "web_fetch": FETCH_INPUT, "web_search": SEARCH_INPUT, "automation_create": AUTOMATION_SCHEMA}
TOOLS = sorted(SCHEMAS)


class DenyTheRest:
    """Leases for fs and shell.exec are granted up front; anything more (network) is denied."""

    async def decide(self, request: LeaseRequest) -> Denial:
        return Denial()


any_char = st.characters(codec=None, exclude_categories=())  # lone surrogates included
texts = st.text(any_char, max_size=40) | st.sampled_from(["", ".", "..", "/", "../..", "a.txt", "\ud800", "a\x00b"])
leaves = (st.none() | st.booleans() | st.integers() | st.integers(4400, 6000).map(lambda digits: -(10**digits))
          | st.floats(allow_nan=True, allow_infinity=True) | texts)
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
                      max_leaves=12)


def _nested(depth: int, leaf: Any) -> Any:
    for i in range(depth):
        leaf = [leaf] if i % 2 else {"k": leaf}
    return leaf


deep_values = st.builds(_nested, st.integers(60, 400), leaves)
def _dumps(value: Any) -> str:
    try:
        return json.dumps(value)
    except ValueError:  # an int too long for Python to write out
        return "[" + "9" * 5000 + "]"


raw_texts = (st.text(any_char, max_size=60) | values.map(_dumps)
             | st.integers(60, 100_000).map(lambda n: '{"path": ' + "[" * n + "]" * n + "}"))


# Input that fits the schema, so the tools really run: paths in, out of and around the workspace, commands.
plain = st.text(st.characters(codec="utf-8"), max_size=24)
paths = st.sampled_from(["a.txt", "sub/b.txt", "sub", ".", "new.txt", "sub/new/c.md", "../out.txt", "/etc/passwd",
                         "bin.dat", "a.txt/x", "link", "x" * 300]) | plain
commands = st.sampled_from(["true", "exit 3", "echo hi > out.txt", "printf '\\xff\\xfe'", "ls -la", "rm -f a.txt",
                            "touch $'odd\\xffname'", "cat a.txt"]) | plain
FITTING = {"string": paths, "integer": st.integers(), "number": st.floats(allow_nan=False) | st.integers(),
           "boolean": st.booleans(),
           "array": st.lists(st.fixed_dictionaries({"scope": plain, "minutes": st.integers()}), max_size=3)}


@st.composite
def fitting(draw: st.DrawFn, tool: str) -> dict[str, Any]:
    schema = SCHEMAS[tool]
    required = set(schema.get("required", ()))
    out = {}
    for key, prop in schema["properties"].items():
        if key in required or draw(st.booleans()):
            out[key] = draw(commands if key == "command" else FITTING[prop["type"]])
    return out


@st.composite
def calls(draw: st.DrawFn, tool: str) -> ToolCallReady:
    call_id = draw(st.text(any_char, min_size=1, max_size=12))
    name = draw(st.sampled_from([tool, tool, tool, tool + "x"]) | st.text(any_char, max_size=8))
    kind = draw(st.sampled_from(["fitting", "fitting", "value", "shaped", "raw", "deep"]))
    if kind == "fitting":
        return ToolCallReady(call_id, tool, draw(fitting(tool)))
    if kind == "raw":
        raw = draw(raw_texts)
        value, error = parse_arguments(raw)  # as the anthropic and openai adapters do
        return ToolCallReady(call_id, name, value, raw_arguments=raw, error=error)
    if kind == "shaped":
        keys = list(SCHEMAS[tool].get("properties", {})) + ["extra"]
        chosen = draw(st.lists(st.sampled_from(keys), unique=True, max_size=len(keys)))
        value = {k: draw(texts if draw(st.booleans()) else values) for k in chosen}
    else:
        value = draw(deep_values if kind == "deep" else values)
    return ToolCallReady(call_id, name, value)  # type: ignore[arg-type]  # any value at all, as a provider may send


def _encodes(request: ProviderRequest) -> None:
    """The request builds and serialises as strict UTF-8 JSON for every adapter and for the provider host."""
    for build in (anthropic.request_params, openai_responses.request_params, openai_chat.request_params):
        json.dumps(build(request), allow_nan=False, ensure_ascii=False).encode("utf-8")
    contents, config = gemini.request_params(request)
    json.dumps([c.model_dump(mode="json", exclude_none=True) for c in contents], allow_nan=False,
               ensure_ascii=False).encode("utf-8")
    config.model_dump_json()
    for message in request.messages:
        json.loads(encode_message(message))


async def _episode(root: Path, tool_calls: list[ToolCallReady], text: str) -> None:
    ws = root / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "a.txt").write_text("alpha\nbeta\n")
    (ws / "sub" / "b.txt").write_text("gamma\n")
    (ws / "bin.dat").write_bytes(b"\x00\xff" * 64)
    os.close(os.open(os.fsencode(ws) + b"/name\xff.txt", os.O_CREAT | os.O_WRONLY))  # not UTF-8: a surrogate in fs_list
    os.symlink("/etc", ws / "link")
    clock = ManualClock()
    with Ledger(root / "ledger.db", clock=clock.now) as ledger:
        provider = ScriptedProvider()
        kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws), shell_timeout_s=5.0),
                        providers=lambda _n: provider, clock=clock, approver=DenyTheRest())
        turn = ScriptedTurn((UsageReport(10, 0), TextChunk(text), *tool_calls, UsageReport(None, 5), StreamEnd("tool_use")))
        provider.script(turn, reply("done"))
        assert tuple(t.name for t in kernel.tools()) == tuple(TOOLS)
        agent = kernel.agents.spawn("fuzzed")
        for scope in ("fs", "shell.exec"):
            kernel.leases.grant(agent.id, scope, 3600)
        kernel.agents.send(agent.id, "go")
        info = await kernel.agents.wait(agent.id)
        await kernel.aclose()

        assert (info.state, info.reason) == ("idle", "")
        provider.assert_done()
        uses = [p for p in provider.requests[1].messages[-2].parts if isinstance(p, ToolUse)]
        results = [p for p in provider.requests[1].messages[-1].parts if isinstance(p, ToolResultPart)]
        assert [r.tool_use_id for r in results] == [u.id for u in uses] and len(results) == len(tool_calls)
        # every call has exactly one outcome on the record (a refusal is an error the model read, beside its `denied`)
        outcomes = sum(len(ledger.page(kind=k, limit=100)) for k in ("result", "error"))
        assert outcomes == len(tool_calls)
        for request in provider.requests:
            _encodes(request)


@pytest.mark.parametrize("tool", TOOLS)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_no_arguments_make_the_agent_fail(tool: str, data: st.DataObject) -> None:
    tool_calls = data.draw(st.lists(calls(tool), min_size=1, max_size=3), label="calls")
    text = data.draw(texts, label="reply text")
    with tempfile.TemporaryDirectory() as root:
        run(_episode(Path(root), tool_calls, text))
