"""Property check: any JSON-able args survive fragmentation on every protocol."""

import json

import anthropic
import openai
from google import genai
from google.genai import types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fakes import FakeProviderServer, Text, ToolCall, Turn

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=12))
json_val = st.recursive(json_leaf, lambda kids: st.one_of(st.lists(kids, max_size=3),
                                                          st.dictionaries(st.text(max_size=6), kids, max_size=3)),
                        max_leaves=8)
args_st = st.dictionaries(st.text(min_size=1, max_size=8), json_val, max_size=4)

_SRV = None
_CLIENTS = None


def server():
    """One server and one client per SDK for all examples (client construction costs ~25 ms)."""
    global _SRV, _CLIENTS
    if _SRV is None:
        _SRV = FakeProviderServer().start()
        _CLIENTS = (
            anthropic.Anthropic(api_key="test-key", base_url=_SRV.anthropic_base_url, max_retries=0),
            openai.OpenAI(api_key="test-key", base_url=_SRV.openai_base_url, max_retries=0),
            genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=_SRV.gemini_base_url)),
        )
    return _SRV, _CLIENTS


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=args_st, frags=st.integers(1, 9), text=st.text(max_size=40), chunks=st.integers(1, 5))
def test_args_and_text_roundtrip_everywhere(args, frags, text, chunks):
    srv, (a, o, g) = server()
    turn = Turn(parts=(Text(text, chunks=chunks), ToolCall("tool", args, fragments=frags)))
    srv.script(turn, turn, turn, turn)

    with a.messages.stream(model="m", max_tokens=5, messages=[{"role": "user", "content": "x"}]) as s:
        msg = s.get_final_message()
    assert msg.content[-1].input == args
    assert "".join(b.text for b in msg.content if b.type == "text") == text

    with o.chat.completions.stream(model="m", messages=[{"role": "user", "content": "x"}]) as s:
        comp = s.get_final_completion()
    assert json.loads(comp.choices[0].message.tool_calls[0].function.arguments) == args
    assert (comp.choices[0].message.content or "") == text
    with o.responses.stream(model="m", input="x") as s:
        resp = s.get_final_response()
    assert json.loads(resp.output[-1].arguments) == args
    assert resp.output_text == text

    chunks_ = list(g.models.generate_content_stream(model="m", contents="x"))
    calls = [fc for c in chunks_ for fc in (c.function_calls or [])]
    assert calls[0].args == args
    srv.assert_done()


def teardown_module(module):
    if _SRV is not None:
        _SRV.close()
