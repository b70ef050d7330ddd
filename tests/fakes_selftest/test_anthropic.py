import asyncio

import anthropic
import httpx2
import pytest

from tests.fakes import Cut, ErrorEvent, HttpError, Text, ToolCall, Turn, Usage

MSGS = [{"role": "user", "content": "hi"}]


def stream(client, **kw):
    with client.messages.stream(model="claude-fake", max_tokens=256, messages=MSGS, **kw) as s:
        texts = list(s.text_stream)
        return texts, s.get_final_message()


def test_text_streams_in_chunks_with_usage(srv, anthropic_client):
    srv.script(Turn(parts=(Text("Hello, world!", chunks=4),), usage=Usage(123, 45)))
    texts, msg = stream(anthropic_client)
    assert texts == ["Hell", "o, ", "wor", "ld!"]
    assert msg.content[0].text == "Hello, world!"
    assert msg.stop_reason == "end_turn"
    assert (msg.usage.input_tokens, msg.usage.output_tokens) == (123, 45)
    assert msg.model == "claude-fake"
    srv.assert_done()


def test_fragmented_tool_call_and_parallel_calls(srv, anthropic_client):
    args = {"path": "/tmp/x", "lines": [1, 2, 3], "opts": {"deep": True}}
    srv.script(Turn(parts=(Text("Let me look."), ToolCall("read", args, id="toolu_A", fragments=5),
                           ToolCall("list", {"dir": "/"}))))
    partials = []
    with anthropic_client.messages.stream(model="m", max_tokens=256, messages=MSGS) as s:
        for ev in s:
            if ev.type == "input_json":
                partials.append(ev.partial_json)
        msg = s.get_final_message()
    assert msg.stop_reason == "tool_use"
    calls = [b for b in msg.content if b.type == "tool_use"]
    assert [(c.id, c.name, c.input) for c in calls[:1]] == [("toolu_A", "read", args)]
    assert calls[1].name == "list" and calls[1].input == {"dir": "/"}
    assert calls[1].id.startswith("toolu_")
    assert len([p for p in partials if p]) >= 5 + 1


def test_raw_events_and_max_tokens(srv, anthropic_client):
    srv.script(Turn(parts=(Text("cut sh"),), stop="max_tokens", usage=Usage(7, 256)))
    events = list(anthropic_client.messages.create(model="m", max_tokens=256, messages=MSGS, stream=True))
    types = [e.type for e in events]
    assert types[0] == "message_start" and types[-2:] == ["message_delta", "message_stop"]
    assert events[0].message.usage.input_tokens == 7
    assert events[-2].delta.stop_reason == "max_tokens" and events[-2].usage.output_tokens == 256


def test_async_client(srv):
    srv.script(Turn(parts=(Text("async ok"),)))

    async def go():
        async with anthropic.AsyncAnthropic(api_key="test-key", base_url=srv.anthropic_base_url,
                                            max_retries=0) as c:
            async with c.messages.stream(model="m", max_tokens=10, messages=MSGS) as s:
                return await s.get_final_message()

    msg = asyncio.run(go())
    assert msg.content[0].text == "async ok"


@pytest.mark.parametrize("status,exc", [(529, anthropic.OverloadedError), (429, anthropic.RateLimitError)])
def test_http_error_is_retried(srv, status, exc):
    srv.script(Turn(fault=HttpError(status, retry_after=0)), Turn(parts=(Text("ok"),)))
    c = anthropic.Anthropic(api_key="test-key", base_url=srv.anthropic_base_url, max_retries=1)
    assert stream(c)[1].content[0].text == "ok"
    assert len(srv.requests) == 2
    srv.assert_done()
    # Without retries the error surfaces with the mapped class and the Anthropic error body.
    srv.script(Turn(fault=HttpError(status, retry_after=0.001, message="busy")))
    with pytest.raises(exc) as ei:
        stream(c.with_options(max_retries=0))
    assert ei.value.status_code == status
    assert ei.value.body["error"]["message"] == "busy"


def test_cut_abort_raises_raw_remote_protocol_error(srv, anthropic_client):
    srv.script(Turn(parts=(Text("abcdef"),), fault=Cut(3, "abort")))
    with pytest.raises(httpx2.RemoteProtocolError):
        stream(anthropic_client)


def test_cut_reset_raises_raw_read_error(srv, anthropic_client):
    srv.script(Turn(parts=(Text("abcdef"),), fault=Cut(3, "reset")))
    with pytest.raises(httpx2.ReadError):
        stream(anthropic_client)


def test_cut_clean_has_no_stop_reason(srv, anthropic_client):
    srv.script(Turn(parts=(Text("abcdef"),), fault=Cut(3, "clean")))
    texts, msg = stream(anthropic_client)
    assert "".join(texts) == "ab"
    assert msg.stop_reason is None


def test_stop_none_ends_without_stop_reason(srv, anthropic_client):
    srv.script(Turn(parts=(Text("abc"),), stop=None))
    assert stream(anthropic_client)[1].stop_reason is None


def test_error_event_raises_status_error_200(srv, anthropic_client):
    srv.script(Turn(parts=(Text("abcdef"),), fault=ErrorEvent(2, "overloaded")))
    with pytest.raises(anthropic.APIStatusError) as ei:
        stream(anthropic_client)
    assert ei.value.status_code == 200
    assert not isinstance(ei.value, anthropic.OverloadedError)
    assert ei.value.body["error"]["type"] == "overloaded_error"


def test_malformed_raw_arguments_raise_value_error_in_helper(srv, anthropic_client):
    srv.script(Turn(parts=(ToolCall("f", raw_arguments='{"a": 1,, oops'),)))
    with pytest.raises(ValueError, match="Unable to parse tool parameter JSON"):
        stream(anthropic_client)


def test_wrong_key_401_and_request_recorded(srv):
    c = anthropic.Anthropic(api_key="wrong", base_url=srv.anthropic_base_url, max_retries=0)
    with pytest.raises(anthropic.AuthenticationError) as ei:
        stream(c)
    assert ei.value.body["error"]["type"] == "authentication_error"
    srv.script(Turn(parts=(Text("x"),)))
    stream(anthropic.Anthropic(api_key="test-key", base_url=srv.anthropic_base_url, max_retries=0),
           system="be brief")
    req = srv.requests[-1]
    assert req.protocol == "anthropic" and req.path == "/v1/messages"
    assert req.body["messages"] == MSGS and req.body["system"] == "be brief" and req.body["stream"] is True
    assert req.headers["authorization"] == "Bearer test-key"
    srv.assert_done()  # the 401 consumed no turn and is not a failure


def test_x_api_key_header_is_accepted(srv):
    srv.script(Turn(parts=(Text("x"),)))
    import httpx2 as h

    r = h.post(srv.anthropic_base_url + "/v1/messages", headers={"x-api-key": "test-key"},
               json={"model": "m", "stream": True, "max_tokens": 5, "messages": MSGS})
    assert r.status_code == 200 and "event: message_stop" in r.text
