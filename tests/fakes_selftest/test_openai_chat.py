import json

import openai
import pytest

from tests.fakes import Cut, ErrorEvent, HttpError, Text, ToolCall, Turn, Usage

MSGS = [{"role": "user", "content": "hi"}]
USAGE = {"include_usage": True}


def run(client, **kw):
    chunks = []
    with client.chat.completions.stream(model="gpt-fake", messages=MSGS, **kw) as s:
        for ev in s:
            if ev.type == "chunk":
                chunks.append(ev.chunk)
        return chunks, s.get_final_completion()


def test_text_usage_and_done(srv, openai_client):
    srv.script(Turn(parts=(Text("Hello there", chunks=3),), usage=Usage(20, 4)))
    chunks, comp = run(openai_client, stream_options=USAGE)
    assert [c.choices[0].delta.content for c in chunks if c.choices][:4] == ["", "Hell", "o th", "ere"]
    assert comp.choices[0].message.content == "Hello there"
    assert comp.choices[0].message.role == "assistant"
    assert comp.choices[0].finish_reason == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage.prompt_tokens == 20
    assert (comp.usage.prompt_tokens, comp.usage.completion_tokens, comp.usage.total_tokens) == (20, 4, 24)
    assert srv.requests[0].body["stream_options"] == USAGE


def test_no_usage_without_stream_options(srv, openai_client):
    srv.script(Turn(parts=(Text("x"),)))
    chunks, comp = run(openai_client)
    assert comp.usage is None and all(c.choices for c in chunks)


def test_parallel_fragmented_tool_calls(srv, openai_client):
    a1 = {"query": "weather in Paris", "units": ["C", "F"]}
    srv.script(Turn(parts=(ToolCall("search", a1, id="call_1", fragments=6), ToolCall("time", {"tz": "CET"}))))
    chunks, comp = run(openai_client, stream_options=USAGE)
    msg = comp.choices[0].message
    assert comp.choices[0].finish_reason == "tool_calls"
    assert msg.role == "assistant"
    calls = msg.tool_calls
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("call_1", "search", a1), (calls[1].id, "time", {"tz": "CET"})]
    assert calls[1].id.startswith("call_")
    arg_chunks = [c for c in chunks if c.choices and c.choices[0].delta.tool_calls]
    assert len(arg_chunks) >= 6 + 1 + 2


def test_max_tokens_is_length(srv, openai_client):
    srv.script(Turn(parts=(Text("trunc"),), stop="max_tokens"))
    chunks = list(openai_client.chat.completions.create(model="m", messages=MSGS, stream=True))
    assert chunks[-1].choices[0].finish_reason == "length"
    # The stream helper refuses a "length" finish outright (surprise in openai 3.57).
    srv.script(Turn(parts=(Text("trunc"),), stop="max_tokens"))
    with pytest.raises(openai.LengthFinishReasonError):
        run(openai_client)


def test_malformed_raw_arguments_arrive_as_is(srv, openai_client):
    srv.script(Turn(parts=(ToolCall("f", raw_arguments='{"a": 1,, oops'),)))
    comp = run(openai_client)[1]
    assert comp.choices[0].message.tool_calls[0].function.arguments == '{"a": 1,, oops'


@pytest.mark.parametrize("status,exc", [(529, openai.InternalServerError), (429, openai.RateLimitError)])
def test_http_error_retried(srv, status, exc):
    srv.script(Turn(fault=HttpError(status, retry_after=0)), Turn(parts=(Text("ok"),)))
    c = openai.OpenAI(api_key="test-key", base_url=srv.openai_base_url, max_retries=1)
    assert run(c)[1].choices[0].message.content == "ok"
    srv.assert_done()
    srv.script(Turn(fault=HttpError(status, message="slow down")))
    with pytest.raises(exc) as ei:
        run(c.with_options(max_retries=0))
    assert ei.value.status_code == status
    assert ei.value.body["message"] == "slow down"


@pytest.mark.parametrize("mode", ["abort", "reset"])
def test_hard_cut_is_connection_error(srv, openai_client, mode):
    srv.script(Turn(parts=(Text("abcdef"),), fault=Cut(2, mode)))
    with pytest.raises(openai.APIConnectionError):
        run(openai_client)


def test_clean_cut_has_no_finish_reason(srv, openai_client):
    srv.script(Turn(parts=(Text("abcdef"),), fault=Cut(3, "clean")))
    chunks = list(openai_client.chat.completions.create(model="m", messages=MSGS, stream=True))
    assert len(chunks) == 3 and all(c.choices[0].finish_reason is None for c in chunks)


def test_error_event_raises_api_error(srv, openai_client):
    srv.script(Turn(parts=(Text("abcdef"),), fault=ErrorEvent(2, "overloaded")))
    with pytest.raises(openai.APIError, match="overloaded"):
        run(openai_client)


def test_wrong_key_401(srv):
    c = openai.OpenAI(api_key="nope", base_url=srv.openai_base_url, max_retries=0)
    with pytest.raises(openai.AuthenticationError) as ei:
        run(c)
    assert ei.value.body["code"] == "invalid_api_key"
    srv.assert_done()
