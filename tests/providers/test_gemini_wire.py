"""Gemini-only wire details the shared contract cannot express: thought signatures and local call ids."""

from __future__ import annotations

import base64

from kernel.core.messages import Message, ToolResultPart, ToolUse, user_text
from kernel.providers.base import ProviderRequest
from kernel.providers.gemini import LOCAL_ID_PREFIX, SIGNATURE_KEY, GeminiProvider
from tests.fakes import Text, Turn
from tests.providers.support import run


def test_thought_signature_is_echoed_and_local_ids_are_not_sent(srv):
    signature = base64.b64encode(b"opaque-signature").decode()
    local_id = LOCAL_ID_PREFIX + "abc"
    conversation = (
        user_text("go"),
        Message("assistant", (ToolUse("fc_1", "fs_read", {"path": "a"}, meta={SIGNATURE_KEY: signature}),
                              ToolUse(local_id, "fs_read", {"path": "b"}))),
        Message("user", (ToolResultPart("fc_1", "fs_read", "A"), ToolResultPart(local_id, "fs_read", "B"))),
    )
    srv.script(Turn(parts=(Text("done"),)))
    provider = GeminiProvider(api_key="test-key", base_url=srv.gemini_base_url)
    out = run(provider, ProviderRequest("s", conversation, model="test-model"))
    assert out.error is None and out.stop == "end_turn"
    model_turn, results = srv.requests[0].body["contents"][1:]
    first, second = model_turn["parts"]
    assert first["thoughtSignature"] == signature and first["functionCall"]["id"] == "fc_1"
    assert "thoughtSignature" not in second and "id" not in second["functionCall"]
    assert [p["functionResponse"].get("id") for p in results["parts"]] == ["fc_1", None]
    assert results["role"] == "user"
