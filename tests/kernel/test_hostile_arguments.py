"""Whatever a model sends as tool arguments, its agent survives: through the real SDKs and the fake.

Each test runs a real kernel whose provider is a real adapter talking to the
loopback fake server: the model's first turn carries hostile arguments, and
the second request must reach the server (the conversation still encodes),
carry an error result the model sees, and leave the agent idle.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from kernel.leases.approver import Grant
from kernel.core.clock import ManualClock
from kernel.core.errors import ProviderError
from kernel.compose import build_kernel
from kernel.providers.adapter import pump
from kernel.config.settings import Settings
from ledger import Ledger, ToolCall as ToolCallEntry, ToolError
from tests.fakes import FakeProviderServer, Text, ToolCall, Turn
from tests.providers.support import wire_conversation

from .conftest import ScriptedApprover, run

STRING_ARGUMENTS = ("anthropic", "openai", "openai-chat")  # Gemini sends arguments as an object, never as text
ALL = (*STRING_ARGUMENTS, "gemini")
PROTOCOL = {"anthropic": "anthropic", "openai": "openai_responses", "openai-chat": "openai_chat", "gemini": "gemini",
            "openai-chat@host": "openai_chat", "gemini@host": "gemini"}
DEEP = 100_000


def _adapter(name: str, srv: FakeProviderServer) -> Any:
    if name.endswith("@host"):  # the SDK in a provider host process, as the desktop runs it
        from kernel.providers.process_host import ProcessProvider
        base = name.removesuffix("@host")
        url = srv.gemini_base_url if base == "gemini" else srv.openai_base_url
        return ProcessProvider(base, api_key="test-key", base_url=url, timeout_s=10.0)
    if name == "anthropic":
        from kernel.providers.anthropic import AnthropicProvider
        return AnthropicProvider(api_key="test-key", base_url=srv.anthropic_base_url, timeout_s=10.0)
    if name == "openai":
        from kernel.providers.openai_responses import OpenAIResponsesProvider
        return OpenAIResponsesProvider(api_key="test-key", base_url=srv.openai_base_url, timeout_s=10.0)
    if name == "openai-chat":
        from kernel.providers.openai_chat import OpenAIChatProvider
        return OpenAIChatProvider(api_key="test-key", base_url=srv.openai_base_url, timeout_s=10.0)
    from kernel.providers.gemini import GeminiProvider
    return GeminiProvider(api_key="test-key", base_url=srv.gemini_base_url, timeout_s=10.0)


@dataclass
class Outcome:
    state: str
    reason: str
    srv: FakeProviderServer
    ledger: Ledger
    protocol: str
    workspace: Path

    def results(self, request: int = 1) -> list[tuple[Any, ...]]:
        """The tool results the model was sent in request ``request``, as (call id, text, is_error)."""
        _, items = wire_conversation(self.protocol, self.srv.requests[request].body)
        return [item[2:] for item in items if item[1] == "result"]


@pytest.fixture
def talk(tmp_path: Path, agentdesk_home: Path) -> Callable[..., Outcome]:
    """Run one agent through ``turns`` with provider ``name``; leases are granted as asked."""
    opened: list[Ledger] = []

    def go(name: str, *turns: Turn, grants: int = 2) -> Outcome:
        ws = tmp_path / f"ws-{name.replace('@', '-')}"
        ws.mkdir()
        clock = ManualClock()
        ledger = Ledger(tmp_path / f"{name}.db", clock=clock.now)
        opened.append(ledger)
        with FakeProviderServer(expected_key="test-key") as srv:
            srv.script(*turns)

            async def body() -> tuple[str, str]:
                provider = _adapter(name, srv)
                approver = ScriptedApprover().will(*[Grant(300.0)] * grants)
                kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws)), providers=lambda _n: provider,
                                clock=clock, approver=approver)
                try:
                    agent = kernel.agents.spawn("hostile")
                    kernel.agents.send(agent.id, "go")
                    info = await kernel.agents.wait(agent.id)
                    return info.state, info.reason
                finally:
                    await provider.aclose()

            state, reason = run(body())
            srv.assert_done()
        return Outcome(state, reason, srv, ledger, PROTOCOL[name], ws.resolve())

    yield go
    for ledger in opened:
        ledger.close()


def _first_error(ledger: Ledger) -> ToolError:
    [error] = ledger.page(kind="error")
    assert isinstance(error, ToolError)
    return error


@pytest.mark.parametrize("name", (*STRING_ARGUMENTS, "openai-chat@host"))
def test_arguments_nested_100000_deep_are_an_error_result(talk, name):
    raw = '{"path": ' + "[" * DEEP + "]" * DEEP + "}"
    out = talk(name, Turn(parts=(ToolCall("fs_read", raw_arguments=raw, id="call_deep", fragments=7),)),
               Turn(parts=(Text("I will not do that again."),)))
    assert (out.state, out.reason) == ("idle", "")
    [(call_id, text, is_error)] = out.results()
    assert call_id == "call_deep" and is_error and "nested more than 64 levels deep" in text
    error = _first_error(out.ledger)
    assert error.tool == "fs_read" and error.input == {"raw": raw}  # the ledger keeps exactly what arrived


def test_gemini_arguments_nested_too_deep_are_an_error_result(talk):
    deep: Any = "bottom"
    for _ in range(200):  # as deep as the fake can write and the SDK read; the kernel allows 64
        deep = [deep]
    out = talk("gemini", Turn(parts=(ToolCall("fs_read", {"path": deep}),)), Turn(parts=(Text("ok"),)))
    assert out.state == "idle"
    [(_, text, is_error)] = out.results()
    assert is_error and "nested more than 64 levels deep" in text
    assert json.loads(_first_error(out.ledger).input["raw"])["path"]  # kept, as safe JSON text


@pytest.mark.parametrize("name", (*ALL, "gemini@host"))
def test_a_lone_surrogate_in_a_path_is_refused_and_the_next_request_encodes(talk, name):
    out = talk(name, Turn(parts=(ToolCall("fs_read", raw_arguments='{"path": "a\\ud800b.txt"}', id="call_s"),)),
               Turn(parts=(Text("noted"),)))
    assert (out.state, out.reason) == ("idle", "")
    [(_, text, is_error)] = out.results()
    assert is_error and "lone surrogate (\\ud800)" in text
    assert len(out.srv.requests) == 2  # the follow-up request was encoded and sent
    assert _first_error(out.ledger).tool == "fs_read"


@pytest.mark.parametrize("name", ALL)
def test_a_lone_surrogate_in_the_reply_text_does_not_break_the_next_request(talk, name):
    out = talk(name, Turn(parts=(Text("odd \ud800 text", chunks=1), ToolCall("fs_list", {}))), Turn(parts=(Text("ok"),)))
    assert out.state == "idle"
    [(_, text, is_error)] = out.results()
    assert not is_error  # fs_list ran (granted)
    _, items = wire_conversation(out.protocol, out.srv.requests[1].body)
    assert any(item[1] == "text" and "\ufffd" in item[2] for item in items)


@pytest.mark.parametrize("raw", ['{"path": "a.txt", "offset": NaN}', '{"path": "a.txt", "offset": 1e400}',
                                 '{"path": "a.txt", "offset": -Infinity}'])
@pytest.mark.parametrize("name", STRING_ARGUMENTS)
def test_nan_and_infinity_are_refused_and_the_next_request_encodes(talk, name, raw):
    out = talk(name, Turn(parts=(ToolCall("fs_read", raw_arguments=raw),)), Turn(parts=(Text("ok"),)))
    assert (out.state, out.reason) == ("idle", "")
    [(_, text, is_error)] = out.results()
    assert is_error and "JSON does not allow" in text


@pytest.mark.parametrize("name", ("anthropic", "gemini"))
def test_a_10_mb_bad_path_is_quoted_capped(talk, name):
    path = "missing/" + "x" * 10_000_000
    out = talk(name, Turn(parts=(ToolCall("fs_read", {"path": path}),)), Turn(parts=(Text("ok"),)), grants=1)
    assert out.state == "idle"
    [(_, text, is_error)] = out.results()
    assert is_error and len(text) <= 2_000 and "characters; the middle is cut" in text
    assert len(_first_error(out.ledger).message) <= 2_000  # the ledger keeps what the model saw
    [call] = out.ledger.page(kind="tool")
    assert isinstance(call, ToolCallEntry) and call.input["path"] == path  # and the call as it was made


@pytest.mark.parametrize("name", STRING_ARGUMENTS)
def test_an_unknown_tool_with_a_huge_odd_name_is_an_error_result(talk, name):
    out = talk(name, Turn(parts=(ToolCall("fs_" + "z" * 50_000, {"path": "a"}),)), Turn(parts=(Text("ok"),)))
    assert out.state == "idle"
    [(_, text, is_error)] = out.results()
    assert is_error and "unknown tool" in text and len(text) <= 2_000


@pytest.mark.parametrize("name", STRING_ARGUMENTS)
def test_top_level_values_that_are_not_objects_are_error_results(talk, name):
    turns = [Turn(parts=(ToolCall("fs_list", raw_arguments=raw),)) for raw in ("[1, 2]", '"a.txt"', "null", "7")]
    out = talk(name, *turns, Turn(parts=(Text("ok"),)))
    assert out.state == "idle"
    texts = [out.results(i)[0][1] for i in range(1, 5)]
    assert all("must be a JSON object" in t for t in texts), texts


def test_an_sdk_parser_recursion_error_is_a_broken_stream_not_a_crash():
    """Gemini's SDK parses each chunk itself: a reply nested past Python's limit must fail the request cleanly."""

    class Reply:
        stop_reason = None

        def feed(self, raw: Any) -> list[Any]:
            return []

    async def open_stream() -> Any:
        async def chunks() -> Any:
            json.loads("[" * DEEP + "]" * DEEP)  # what the SDK does with such a chunk
            yield None

        return chunks()

    async def go() -> ProviderError:
        with pytest.raises(ProviderError) as info:
            async for _ in pump("gemini", open_stream, Reply(), (ValueError,), lambda e, s: RuntimeError("unused")):
                pass
        return info.value

    error = asyncio.run(go())
    assert error.kind == "stream" and "nested too deeply" in str(error)
