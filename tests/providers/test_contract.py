"""The provider contract, run against every adapter through its real SDK and the loopback fake.

One suite for four adapters (eventsourcing-style contract tests): whatever a
test asserts here is what the kernel may rely on from any provider.
"""

from __future__ import annotations

import asyncio

import pytest

from kernel.core.messages import Message, TextPart, ToolResultPart, ToolSpec, ToolUse, user_text
from kernel.providers.base import ProviderRequest, TextChunk
from kernel.providers.retry import RetryingProvider
from tests.fakes import Cut, ErrorEvent, FakeProviderServer, HttpError, Text, ToolCall, Turn, Usage
from tests.providers.conftest import CASES
from tests.providers.support import RecordingSleep, run, wire_conversation, wire_tools

READ = ToolSpec("fs_read", "Read a file in the workspace.",
                {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})


def ask(text: str = "hello", *, model: str = "test-model", tools: tuple[ToolSpec, ...] = (READ,)) -> ProviderRequest:
    return ProviderRequest(system="You are careful.", messages=(user_text(text),), tools=tools, model=model)


def retrying(provider, sleep: RecordingSleep, *, max_retries: int = 3, cap_s: float = 30.0) -> RetryingProvider:
    return RetryingProvider(provider, max_retries=max_retries, cap_s=cap_s, sleep=sleep, random=lambda: 1.0)


# --------------------------------------------------------------------------- replies

def test_text_streams_as_deltas(case, srv):
    srv.script(Turn(parts=(Text("Hello, streaming world", chunks=4),), usage=Usage(21, 4)))
    out = run(case.make(srv), ask())
    assert out.error is None
    assert out.text == "Hello, streaming world"
    assert out.text_deltas >= 3
    assert out.stop == "end_turn"
    assert out.usage == (21, 4)
    srv.assert_done()


def test_single_tool_call_with_fragmented_arguments(case, srv):
    args = {"path": "notes/todo.md", "limit": 40}
    srv.script(Turn(parts=(ToolCall("fs_read", args, id="call_one", fragments=5),)))
    out = run(case.make(srv), ask())
    assert out.error is None
    assert [(c.id, c.name, c.input, c.error) for c in out.calls] == [("call_one", "fs_read", args, None)]
    assert out.stop == "tool_use"
    srv.assert_done()


def test_parallel_tool_calls_keep_their_order(case, srv):
    srv.script(Turn(parts=(Text("Reading both."),
                           ToolCall("fs_read", {"path": "a.txt"}, id="call_a", fragments=3),
                           ToolCall("fs_list", {"path": "src"}, id="call_b", fragments=2))))
    out = run(case.make(srv), ask())
    assert out.text == "Reading both."
    assert [(c.id, c.name, c.input) for c in out.calls] == [
        ("call_a", "fs_read", {"path": "a.txt"}), ("call_b", "fs_list", {"path": "src"})]
    assert out.stop == "tool_use"
    assert out.events[-1].stop_reason == "tool_use"  # StreamEnd comes last, after usage
    srv.assert_done()


def test_conversation_with_tool_results_is_translated(case, srv):
    conversation = (
        user_text("read two files"),
        Message("assistant", (TextPart("Reading both."),
                              ToolUse("call_a", "fs_read", {"path": "a.txt"}),
                              ToolUse("call_b", "fs_read", {"path": "b.txt"}))),
        Message("user", (ToolResultPart("call_a", "fs_read", "alpha"),
                         ToolResultPart("call_b", "fs_read", "permission denied: the user did not grant fs.read",
                                        is_error=True))),
        Message("assistant", (TextPart("a.txt says alpha."),)),
        user_text("thanks"),
    )
    srv.script(Turn(parts=(Text("You're welcome."),)))
    out = run(case.make(srv), ProviderRequest("You are careful.", conversation, (READ,), model="test-model"))
    assert out.error is None and out.text == "You're welcome."
    system, wire = wire_conversation(case.protocol, srv.requests[0].body)
    assert system == "You are careful."
    assert wire == [
        ("user", "text", "read two files"),
        ("assistant", "text", "Reading both."),
        ("assistant", "call", "call_a", "fs_read", {"path": "a.txt"}),
        ("assistant", "call", "call_b", "fs_read", {"path": "b.txt"}),
        ("user", "result", "call_a", "alpha", False),
        ("user", "result", "call_b", "permission denied: the user did not grant fs.read", True),
        ("assistant", "text", "a.txt says alpha."),
        ("user", "text", "thanks"),
    ]
    assert wire_tools(case.protocol, srv.requests[0].body) == [
        ("fs_read", READ.description, dict(READ.input_schema))]
    srv.assert_done()


def test_unrepresentable_conversation_is_refused_before_any_request(case, srv):
    bad = Message("user", (ToolUse("call_x", "fs_read", {"path": "a"}),))
    out = run(case.make(srv), ProviderRequest("s", (bad,), model="test-model"))
    assert out.error is not None and out.error.kind == "unsupported"
    assert srv.requests == []


@pytest.mark.parametrize("stop, expected", [("end_turn", "end_turn"), ("max_tokens", "max_tokens")])
def test_stop_reasons(case, srv, stop, expected):
    srv.script(Turn(parts=(Text("cut short"),), stop=stop, usage=Usage(30, 8)))
    out = run(case.make(srv), ask())
    assert out.error is None
    assert out.stop == expected
    assert out.usage == (30, 8)


def test_usage_numbers_replace_rather_than_add(case, srv):
    srv.script(Turn(parts=(Text("abc def ghi jkl", chunks=4), ToolCall("fs_read", {"path": "x"})),
                    usage=Usage(1234, 567)))
    out = run(case.make(srv), ask())
    assert out.usage == (1234, 567)
    if case.name == "anthropic":  # Anthropic reports input first, before any text
        first = out.events[0]
        assert (first.input_tokens, first.output_tokens) == (1234, None)


# What each protocol can say of its prompt cache: (read, written) as the adapter reports them.
CACHE_SEEN = {"anthropic": (300, 40), "openai": (300, 40), "openai-chat": (300, None), "gemini": (300, None)}


def test_request_id_and_cache_tokens_are_reported(case, srv):
    srv.script(Turn(parts=(Text("cached", chunks=2),), usage=Usage(1000, 20, cache_read=300, cache_write=40)),
               Turn(parts=(Text("again"),), usage=Usage(50, 5)))
    out = run(case.make(srv), ask())
    assert out.error is None
    assert out.usage == (1000, 20)  # every input token, the cached ones included
    assert out.cache == CACHE_SEEN[case.name]
    assert out.request_id == srv.request_ids[0]  # the request-id / x-request-id header, Gemini's responseId
    again = run(case.make(srv), ask())
    assert again.request_id == srv.request_ids[1] != out.request_id
    assert again.cache[0] in (0, None) and again.usage == (50, 5)


def test_a_failed_request_keeps_its_request_id(case, srv):
    """An error reply's request-id header, and a stream that broke after it started, name the request."""
    srv.script(Turn(fault=HttpError(400, message="bad request")),
               Turn(parts=(Text("one two three four five six seven eight", chunks=8),), fault=ErrorEvent(6)))
    refused = run(case.make(srv), ask())
    assert refused.error is not None and refused.error.status == 400
    assert refused.error.request_id == srv.error_request_ids[0] and refused.error.request_id.startswith("req_err_")
    broke = run(case.make(srv), ask())
    assert broke.error is not None and broke.error.started
    assert broke.error.request_id == srv.request_ids[0]  # the stream's header (Gemini: the responseId it sent)
    srv.assert_done()


# Gemini sends function-call arguments as a JSON object: there is no string to mis-parse, so no gemini case.
@pytest.mark.parametrize("case", [name for name, c in CASES.items() if c.name != "gemini"], indirect=True)
def test_malformed_tool_json_is_a_result_not_an_exception(case, srv):
    srv.script(Turn(parts=(ToolCall("fs_read", raw_arguments='{"path": "a.txt"', id="call_bad"),
                           ToolCall("fs_read", {"path": "b.txt"}, id="call_good"))))
    out = run(case.make(srv), ask())
    assert out.error is None
    bad, good = out.calls
    assert (bad.id, bad.input, bad.raw_arguments) == ("call_bad", None, '{"path": "a.txt"')
    assert bad.error and "JSON" in bad.error
    assert good.input == {"path": "b.txt"}
    assert out.stop == "tool_use"


# --------------------------------------------------------------------------- retries

def test_retries_429_529_503_honouring_retry_after_capped(case, srv):
    srv.script(Turn(fault=HttpError(429, retry_after=2)),
               Turn(fault=HttpError(529, retry_after=0.25)),
               Turn(fault=HttpError(503, retry_after=120)),
               Turn(parts=(Text("finally"),)))
    sleep = RecordingSleep()
    out = run(retrying(case.make(srv), sleep, max_retries=3, cap_s=30.0), ask())
    assert out.error is None and out.text == "finally"
    assert sleep.calls == [2.0, 0.25, 30.0]
    assert len(srv.requests) == 4
    srv.assert_done()


def test_retries_give_up_with_the_last_error(case, srv):
    srv.script(Turn(fault=HttpError(503, retry_after=1)), Turn(fault=HttpError(503, retry_after=1)))
    sleep = RecordingSleep()
    out = run(retrying(case.make(srv), sleep, max_retries=1), ask())
    assert out.error is not None
    assert (out.error.kind, out.error.status, out.error.retry_after, out.error.started) == ("overloaded", 503, 1.0,
                                                                                           False)
    assert sleep.calls == [1.0]
    srv.assert_done()


def test_connection_refused_is_retried_then_reported(case, closed_port):
    root = f"http://127.0.0.1:{closed_port}"
    url = root + "/v1" if case.protocol.startswith("openai") else root
    sleep = RecordingSleep()
    provider = case.build(api_key="test-key", base_url=url, timeout_s=5.0)
    out = run(retrying(provider, sleep, max_retries=3, cap_s=1.5), ask())
    assert out.error is not None
    assert (out.error.kind, out.error.started) == ("connection", False)
    assert sleep.calls == [0.5, 1.0, 1.5]  # exponential backoff (jitter pinned to 1.0), capped


@pytest.mark.parametrize("fault, kinds", [
    (Cut(6, "abort"), {"stream"}),
    (Cut(6, "reset"), {"stream"}),
    (Cut(6, "clean"), {"incomplete"}),
    (ErrorEvent(6), {"stream"}),
], ids=["abort", "reset", "clean", "error-event"])
def test_broken_stream_is_not_retried(case, srv, fault, kinds):
    srv.script(Turn(parts=(Text("one two three four five six seven eight", chunks=8),), fault=fault))
    sleep = RecordingSleep()
    out = run(retrying(case.make(srv), sleep), ask())
    assert out.text_deltas >= 1, "the cut should come after some of the reply"
    assert out.error is not None
    assert out.error.kind in kinds
    assert out.error.started is True
    assert sleep.calls == []
    assert len(srv.requests) == 1
    srv.assert_done()


# --------------------------------------------------------------------------- configuration errors

def test_rejected_key_names_the_variable(case, srv):
    sleep = RecordingSleep()
    out = run(retrying(case.make(srv, key="wrong-key"), sleep), ask())
    assert out.error is not None and out.error.kind == "auth" and out.error.status == 401
    variable = "GEMINI_API_KEY" if case.name == "gemini" else f"{case.name.split('-')[0].upper()}_API_KEY"
    assert variable in str(out.error)
    assert sleep.calls == [] and len(srv.requests) == 1


def test_unknown_model_is_not_found_naming_it(case):
    with FakeProviderServer(expected_key="test-key", known_models={"test-model"}) as srv:
        out = run(case.make(srv), ask(model="no-such-model"))
    assert out.error is not None and out.error.kind == "not_found" and out.error.status == 404
    assert "unknown model 'no-such-model'" in str(out.error)


# --------------------------------------------------------------------------- cancellation

@pytest.mark.parametrize("how", ["aclose", "cancel"])
def test_kill_during_slow_stream_closes_the_connection_promptly(case, srv, how):
    srv.script(Turn(parts=(Text("one two three four five six seven eight", chunks=8),), delay=0.15))
    provider = retrying(case.make(srv), RecordingSleep())

    async def go() -> None:
        events = provider.stream(ask())
        if how == "aclose":  # the consumer stops reading and closes the stream
            async for event in events:
                if isinstance(event, TextChunk):
                    break
            await events.aclose()
        else:  # the agent's task is cancelled (killed) while it waits for the next event
            first_text = asyncio.Event()

            async def consume() -> None:
                async for event in events:
                    if isinstance(event, TextChunk):
                        first_text.set()

            task = asyncio.create_task(consume())
            await first_text.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        # The reply takes 8 x 0.15 s to finish; idle with nothing finished means the server saw the disconnect.
        # How soon it sees it is a figure of benchmarks/provider_cancel_bench.py (goal: under 0.5 s).
        idle = await asyncio.to_thread(srv.wait_idle, 10.0)
        assert idle
        await provider.aclose()

    asyncio.run(go())
    assert srv.replies_finished_at == [], "the reply should have been abandoned, not finished"


def test_the_served_model_comes_from_the_reply(case, srv):
    """Each SDK's reply names the model that answered (Anthropic ``message.model``, OpenAI ``model``,
    Gemini ``modelVersion``): a reply naming another model than the one asked for is reported as such,
    and a stream that broke after it started keeps the name on its error (model routes, issue 25)."""
    srv.script(Turn(parts=(Text("dated", chunks=2),), served_model="test-model-2026-01-15"),
               Turn(parts=(Text("plain"),)),
               Turn(parts=(Text("one two three four five six seven eight", chunks=8),), fault=ErrorEvent(6),
                    served_model="test-model-2026-01-15"))
    dated = run(case.make(srv), ask())
    assert dated.error is None and dated.served_model == "test-model-2026-01-15"
    assert run(case.make(srv), ask()).served_model == "test-model"
    broke = run(case.make(srv), ask())
    assert broke.error is not None and broke.error.started
    assert broke.error.served_model == "test-model-2026-01-15"
    srv.assert_done()


def test_a_hostile_served_model_name_is_dropped(case, srv):
    srv.script(Turn(parts=(Text("x"),), served_model="evil model\n" + "x" * 300))
    out = run(case.make(srv), ask())
    assert out.error is None and out.served_model is None
