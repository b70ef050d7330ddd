import json

import openai
import pytest

from tests.fakes import Cut, ErrorEvent, HttpError, Text, ToolCall, Turn, Usage


def run(client, **kw):
    with client.responses.stream(model="gpt-fake", input="hi", **kw) as s:
        events = list(s)
        return events, s.get_final_response()


def test_text_and_usage(srv, openai_client):
    srv.script(Turn(parts=(Text("Hello there"),), usage=Usage(31, 9)))
    events, resp = run(openai_client)
    assert resp.output_text == "Hello there"
    assert [e.delta for e in events if e.type == "response.output_text.delta"] == ["Hell", "o th", "ere"]
    assert (resp.usage.input_tokens, resp.usage.output_tokens, resp.usage.total_tokens) == (31, 9, 40)
    assert resp.status == "completed"
    seqs = [e.sequence_number for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert events[0].type == "response.created" and events[-1].type == "response.completed"


def test_parallel_fragmented_tool_calls(srv, openai_client):
    a1 = {"cmd": "ls -la", "cwd": "/home"}
    srv.script(Turn(parts=(Text("checking"), ToolCall("shell", a1, id="call_X", fragments=4),
                           ToolCall("clock", {}))))
    events, resp = run(openai_client)
    calls = [o for o in resp.output if o.type == "function_call"]
    assert [(c.call_id, c.name, json.loads(c.arguments)) for c in calls] == [
        ("call_X", "shell", a1), (calls[1].call_id, "clock", {})]
    assert calls[1].call_id.startswith("call_") and calls[0].id.startswith("fc_")
    deltas = [e for e in events if e.type == "response.function_call_arguments.delta"]
    assert len(deltas) >= 4 + 1
    assert resp.output_text == "checking"


def test_malformed_raw_arguments_arrive_as_is(srv, openai_client):
    srv.script(Turn(parts=(ToolCall("f", raw_arguments="{not json"),)))
    resp = run(openai_client)[1]
    assert resp.output[0].arguments == "{not json"


def test_max_tokens_is_response_incomplete(srv, openai_client):
    srv.script(Turn(parts=(Text("trunc"),), stop="max_tokens"))
    events = list(openai_client.responses.create(model="m", input="hi", stream=True))
    assert events[-1].type == "response.incomplete"
    assert events[-1].response.incomplete_details.reason == "max_output_tokens"
    assert events[-1].response.usage.output_tokens == 5


def test_http_error_retried(srv):
    srv.script(Turn(fault=HttpError(529, retry_after=0.001)), Turn(parts=(Text("ok"),)))
    c = openai.OpenAI(api_key="test-key", base_url=srv.openai_base_url, max_retries=2)
    assert run(c)[1].output_text == "ok"
    srv.assert_done()


@pytest.mark.parametrize("mode", ["abort", "reset"])
def test_hard_cut_is_connection_error(srv, openai_client, mode):
    srv.script(Turn(parts=(Text("abcdef"),), fault=Cut(4, mode)))
    with pytest.raises(openai.APIConnectionError):
        run(openai_client)


def test_clean_cut_raises_runtime_error(srv, openai_client):
    srv.script(Turn(parts=(Text("abcdef"),), fault=Cut(4, "clean")))
    with pytest.raises(RuntimeError, match="response.completed"):
        run(openai_client)


def test_error_event_is_yielded(srv, openai_client):
    srv.script(Turn(parts=(Text("abcdef"),), fault=ErrorEvent(3, "overloaded")))
    with openai_client.responses.stream(model="m", input="hi") as s:
        events = list(s)
    assert events[-1].type == "error" and events[-1].message == "overloaded"
