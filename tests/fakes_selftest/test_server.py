import socket
import threading
import time

import anthropic
import httpx2
import openai
import pytest
from google import genai
from google.genai import errors, types

from tests.fakes import (Cut, ErrorEvent, FakeProviderServer, HttpError, Text, ToolCall, Turn,
                         Usage)
from tests.fakes.turns import split_text

MSGS = [{"role": "user", "content": "hi"}]


def test_assert_done_catches_unused_turn(srv):
    srv.script(Turn(parts=(Text("never asked"),)))
    with pytest.raises(AssertionError, match="never requested"):
        srv.assert_done()


def test_unexpected_request_is_500_and_remembered(srv, anthropic_client):
    with pytest.raises(anthropic.InternalServerError, match="no scripted turn left"):
        anthropic_client.messages.create(model="m", max_tokens=5, messages=MSGS, stream=True)
    with pytest.raises(AssertionError, match="unexpected anthropic request"):
        srv.assert_done()


def test_unexpected_request_retried_by_sdk_is_seen_each_time(srv):
    c = openai.OpenAI(api_key="test-key", base_url=srv.openai_base_url, max_retries=1)
    srv.script(Turn(fault=HttpError(500, retry_after=0.001)))
    with pytest.raises(openai.InternalServerError):
        c.chat.completions.create(model="m", messages=MSGS, stream=True)
    assert len(srv.requests) == 2 and len(srv.failures) == 1


def test_known_models_404_per_protocol():
    with FakeProviderServer(known_models={"good"}) as s:
        a = anthropic.Anthropic(api_key="test-key", base_url=s.anthropic_base_url, max_retries=0)
        with pytest.raises(anthropic.NotFoundError) as ei:
            a.messages.create(model="bad", max_tokens=5, messages=MSGS, stream=True)
        assert ei.value.body["error"]["type"] == "not_found_error"
        o = openai.OpenAI(api_key="test-key", base_url=s.openai_base_url, max_retries=0)
        with pytest.raises(openai.NotFoundError):
            o.responses.create(model="bad", input="hi", stream=True)
        with pytest.raises(openai.NotFoundError):
            o.chat.completions.create(model="bad", messages=MSGS, stream=True)
        g = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=s.gemini_base_url))
        with pytest.raises(errors.ClientError) as gi:
            list(g.models.generate_content_stream(model="bad", contents="hi"))
        assert gi.value.code == 404 and gi.value.status == "NOT_FOUND"
        s.script(Turn(parts=(Text("fine"),)))
        assert "".join(ch.text for ch in g.models.generate_content_stream(model="good", contents="hi")) == "fine"
        s.assert_done()


def test_http_error_headers_and_kind(srv):
    srv.script(Turn(fault=HttpError(429, retry_after=2, kind="custom_kind", message="m")))
    r = httpx2.post(srv.openai_base_url + "/chat/completions", headers={"authorization": "Bearer test-key"},
                    json={"model": "m", "stream": True, "messages": MSGS})
    assert r.status_code == 429
    assert r.headers["retry-after"] == "2" and r.headers["retry-after-ms"] == "2000"
    assert r.json() == {"error": {"message": "m", "type": "custom_kind", "param": None,
                                  "code": "rate_limit_exceeded"}}


def test_unknown_path_and_non_streaming_are_failures(srv):
    r = httpx2.post(srv.url + "/v2/whatever", json={})
    assert r.status_code == 404
    srv.script(Turn(parts=(Text("x"),)))
    r = httpx2.post(srv.url + "/v1/messages", headers={"x-api-key": "test-key"},
                    json={"model": "m", "max_tokens": 5, "messages": MSGS})
    assert r.status_code == 400
    assert len(srv.failures) == 2
    with pytest.raises(AssertionError):
        srv.assert_done()


def test_replies_finished_at_and_received_at_order(srv, anthropic_client):
    srv.script(*[Turn(parts=(Text(f"turn {i}"),)) for i in range(3)])
    for _ in range(3):
        with anthropic_client.messages.stream(model="m", max_tokens=5, messages=MSGS) as s:
            s.get_final_message()
    reqs, done = srv.requests, srv.replies_finished_at
    assert len(done) == 3
    for i in range(3):
        assert reqs[i].received_at <= done[i]
        if i:
            assert done[i - 1] <= reqs[i].received_at
    srv.assert_done()


def test_one_turn_reply_is_written_in_one_piece(srv):
    """The whole SSE reply (headers and body) goes out in a single write; TCP_NODELAY is set."""
    srv.script(Turn(parts=(Text("x" * 50, chunks=10), ToolCall("t", {"a": 1}))))
    body = (b'{"model":"m","stream":true,"max_tokens":5,"messages":[]}')
    with socket.create_connection(("127.0.0.1", srv.port)) as sk:
        sk.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: test-key\r\n"
                   b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        srv.wait_idle()
        data = sk.recv(1 << 20)
    assert data.startswith(b"HTTP/1.1 200") and data.endswith(b"0\r\n\r\n")
    assert data.count(b"event: content_block_delta") == 10 + 4


def test_keep_alive_connection_is_reused(srv, anthropic_client):
    srv.script(Turn(parts=(Text("a"),)), Turn(parts=(Text("b"),)))
    for _ in range(2):
        with anthropic_client.messages.stream(model="m", max_tokens=5, messages=MSGS) as s:
            s.get_final_message()
    srv.assert_done()


def test_slow_stream_delivers_events_apart(srv, anthropic_client):
    srv.script(Turn(parts=(Text("abcd", chunks=4),), delay=0.02))
    t0 = time.perf_counter()
    with anthropic_client.messages.stream(model="m", max_tokens=5, messages=MSGS) as s:
        assert "".join(s.text_stream) == "abcd"
    assert time.perf_counter() - t0 >= 0.02 * 8


def test_close_does_not_hang_on_slow_stream():
    srv = FakeProviderServer().start()
    srv.script(Turn(parts=(Text("abcdefgh", chunks=8),), delay=30))
    c = anthropic.Anthropic(api_key="test-key", base_url=srv.anthropic_base_url, max_retries=0)
    got_first, outcome = threading.Event(), []

    def client():
        try:
            with c.messages.stream(model="m", max_tokens=5, messages=MSGS) as s:
                for ev in s:
                    got_first.set()
        except Exception as e:  # noqa: BLE001
            outcome.append(e)
        got_first.set()

    th = threading.Thread(target=client, daemon=True)
    th.start()
    assert got_first.wait(5)
    closer = threading.Thread(target=srv.close, daemon=True)  # a deadline, not a measurement: the reply's
    closer.start()                                              # next event is 30 s away
    closer.join(10)
    assert not closer.is_alive(), "close() waited for the slow stream"
    th.join(5)
    assert not th.is_alive()
    assert outcome and isinstance(outcome[0], (httpx2.TransportError, anthropic.APIError))


def test_client_disconnect_ends_slow_handler(srv, anthropic_client):
    srv.script(Turn(parts=(Text("abcdefgh", chunks=8),), delay=30))
    with anthropic_client.messages.stream(model="m", max_tokens=5, messages=MSGS) as s:
        next(iter(s))  # message_start arrived; the handler now sleeps before the next event
    assert srv.wait_idle(timeout=10)  # the reply's next event is 30 s away: idle now means the handler ended
    assert srv.replies_finished_at == []  # the reply never finished


def test_turn_validation():
    with pytest.raises(ValueError):
        Turn(stop="bogus")
    with pytest.raises(ValueError):
        Cut(1, "explode")
    with pytest.raises(TypeError):
        Turn(parts=("plain string",))
    assert Turn(parts=(ToolCall("x"),)).resolved_stop == "tool_use"
    assert Turn(parts=(Text("x"),)).resolved_stop == "end_turn"
    assert Turn().usage == Usage(10, 5)
    assert isinstance(ErrorEvent(0).message, str)


@pytest.mark.parametrize("s,n", [("", 3), ("a", 3), ("abcdefg", 3), ("xy", 1), ("hello", 9), ("é∑ü", 2)])
def test_split_text(s, n):
    pieces = split_text(s, n)
    assert "".join(pieces) == s
    assert len(pieces) == (1 if not s else min(n, len(s)))
