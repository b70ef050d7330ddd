import httpx2
import pytest
from google import genai
from google.genai import errors, types

from tests.fakes import Cut, ErrorEvent, HttpError, Text, ToolCall, Turn, Usage


def run(client, model="gemini-fake", **kw):
    return list(client.models.generate_content_stream(model=model, contents="hi", **kw))


def test_text_and_running_usage(srv, gemini_client):
    srv.script(Turn(parts=(Text("Hello there"),), usage=Usage(12, 6)))
    chunks = run(gemini_client)
    assert "".join(c.text for c in chunks) == "Hello there"
    assert len(chunks) == 3
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP
    assert all(c.candidates[0].finish_reason is None for c in chunks[:-1])
    last = chunks[-1].usage_metadata
    assert (last.prompt_token_count, last.candidates_token_count, last.total_token_count) == (12, 6, 18)
    counts = [c.usage_metadata.candidates_token_count for c in chunks]
    assert counts == sorted(counts)
    req = srv.requests[0]
    assert req.protocol == "gemini" and req.path == "/v1/models/gemini-fake:streamGenerateContent?alt=sse"
    assert req.headers["x-goog-api-key"] == "test-key"
    assert req.body["contents"][0]["parts"][0]["text"] == "hi"


def test_function_calls_whole_with_ids_and_stop(srv, gemini_client):
    args = {"city": "Oslo", "days": [1, 2]}
    srv.script(Turn(parts=(ToolCall("forecast", args, id="fc_1", fragments=7), ToolCall("now"))))
    chunks = run(gemini_client)
    calls = [fc for c in chunks for fc in (c.function_calls or [])]
    assert [(fc.id, fc.name, fc.args) for fc in calls] == [("fc_1", "forecast", args), (calls[1].id, "now", {})]
    assert calls[1].id
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP


def test_raw_arguments_become_object(srv, gemini_client):
    srv.script(Turn(parts=(ToolCall("f", raw_arguments="{broken"), ToolCall("g", raw_arguments='{"ok": 1}'))))
    calls = [fc for c in run(gemini_client) for fc in (c.function_calls or [])]
    assert calls[0].args == {"__raw__": "{broken"} and calls[1].args == {"ok": 1}


def test_max_tokens_and_v1beta(srv):
    srv.script(Turn(parts=(Text("trunc"),), stop="max_tokens"))
    c = genai.Client(api_key="test-key",
                     http_options=types.HttpOptions(base_url=srv.gemini_base_url, api_version="v1beta"))
    chunks = run(c)
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.MAX_TOKENS
    assert srv.requests[0].path.startswith("/v1beta/models/gemini-fake:streamGenerateContent")


def test_async_stream(srv, gemini_client):
    import asyncio

    srv.script(Turn(parts=(Text("async"),)))

    async def go():
        out = []
        async for ch in await gemini_client.aio.models.generate_content_stream(model="m", contents="hi"):
            out.append(ch.text)
        return "".join(out)

    assert asyncio.run(go()) == "async"


@pytest.mark.parametrize("status,exc,kind", [(429, errors.ClientError, "RESOURCE_EXHAUSTED"),
                                             (503, errors.ServerError, "UNAVAILABLE")])
def test_http_error_not_retried_by_default(srv, gemini_client, status, exc, kind):
    srv.script(Turn(fault=HttpError(status, retry_after=0, message="quota")))
    with pytest.raises(exc) as ei:
        run(gemini_client)
    assert ei.value.code == status and ei.value.status == kind and ei.value.message == "quota"
    srv.assert_done()


def test_http_error_retried_with_retry_options(srv):
    srv.script(Turn(fault=HttpError(429)), Turn(parts=(Text("ok"),)))
    c = genai.Client(api_key="test-key", http_options=types.HttpOptions(
        base_url=srv.gemini_base_url,
        retry_options=types.HttpRetryOptions(attempts=2, initial_delay=0.001, max_delay=0.001, jitter=0)))
    assert "".join(ch.text for ch in run(c)) == "ok"
    srv.assert_done()


def test_cut_abort(srv, gemini_client):
    srv.script(Turn(parts=(Text("abcdef"),), fault=Cut(1, "abort")))
    with pytest.raises(httpx2.RemoteProtocolError):
        run(gemini_client)


def test_cut_reset(srv, gemini_client):
    srv.script(Turn(parts=(Text("abcdef"),), fault=Cut(1, "reset")))
    with pytest.raises(httpx2.ReadError):
        run(gemini_client)


def test_cut_clean(srv, gemini_client):
    srv.script(Turn(parts=(Text("abcdef"),), fault=Cut(2, "clean")))
    chunks = run(gemini_client)
    assert len(chunks) == 2 and chunks[-1].candidates[0].finish_reason is None


def test_error_event(srv, gemini_client):
    srv.script(Turn(parts=(Text("abcdef"),), fault=ErrorEvent(1, "overloaded")))
    with pytest.raises(errors.ServerError) as ei:
        run(gemini_client)
    assert ei.value.code == 503


def test_wrong_key_and_query_key(srv):
    c = genai.Client(api_key="bad", http_options=types.HttpOptions(base_url=srv.gemini_base_url))
    with pytest.raises(errors.ClientError) as ei:
        run(c)
    assert ei.value.code == 401 and ei.value.status == "UNAUTHENTICATED"
    srv.script(Turn(parts=(Text("q"),)))
    r = httpx2.post(srv.url + "/v1beta/models/m:streamGenerateContent?alt=sse&key=test-key",
                    json={"contents": []})
    assert r.status_code == 200 and r.text.startswith("data: {")
    srv.assert_done()
