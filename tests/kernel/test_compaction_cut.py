"""Random histories through the compaction cut, sent through all four real SDKs to the strict fake.

The fake refuses what the real APIs refuse (an orphaned tool_use or tool_result, Gemini's unequal
function call and response counts: tests/fakes/validate.py), so a cut that separated a call from its
result would be a 400 here. The cut keeps the last exchanges as they were, and the compacted context
comes first.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel.context.compaction import after_cut, cut_index
from kernel.core.messages import Message, TextPart, ToolResultPart, ToolUse, appended, user_text
from kernel.providers.base import ProviderRequest, ToolSpec
from tests.fakes import FakeProviderServer, Text, Turn

from .test_hostile_arguments import _adapter

PROTOCOLS = ["anthropic", "openai", "openai-chat", "gemini"]
TOOL = ToolSpec("fs_read", "read a file", {"type": "object", "properties": {"path": {"type": "string"}}})


def _history(shape: list[tuple[int, bool]]) -> tuple[Message, ...]:
    """A conversation from (calls in the turn, a new user message after it) pairs: always well formed."""
    conv: tuple[Message, ...] = (user_text("start"),)
    n = 0
    for calls, user_after in shape:
        uses = tuple(ToolUse(f"call_{n + i}", "fs_read", {"path": f"f{n + i}"}) for i in range(calls))
        conv = appended(conv, Message("assistant", (TextPart("working"),) + uses))
        if calls:
            conv = appended(conv, Message("user", tuple(ToolResultPart(u.id, "fs_read", "data") for u in uses)))
        n += calls
        if user_after or not calls:
            conv = appended(conv, user_text(f"more {n}"))
    return conv


@pytest.fixture(scope="module")
def server():
    with FakeProviderServer() as srv:
        yield srv


@pytest.mark.parametrize("name", PROTOCOLS)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=st.lists(st.tuples(st.integers(0, 3), st.booleans()), min_size=1, max_size=12))
def test_no_cut_separates_a_call_from_its_result(server: FakeProviderServer, name: str,
                                                 shape: list[tuple[int, bool]]) -> None:
    conv = _history(shape)
    cut = cut_index(conv)
    if cut == 0:  # nothing before an assistant turn that follows a whole user message: nothing to summarize
        return
    compacted = after_cut(conv, cut, "[summary] the earlier conversation")
    assert compacted[1:] == conv[cut:] and compacted[0].role == "user" and conv[cut].role == "assistant"
    if compacted[-1].role != "user":
        compacted = appended(compacted, user_text("go on"))
    refused = len(server.refused)
    server.script(Turn(parts=(Text("ok"),)))

    async def send() -> None:
        provider = _adapter(name, server)
        try:
            async for _ in provider.stream(ProviderRequest(system="s", messages=compacted, tools=(TOOL,), model="m")):
                pass
        finally:
            await provider.aclose()

    asyncio.run(send())
    assert server.refused[refused:] == []
    assert server.pending_turns == 0


@pytest.mark.parametrize("name", PROTOCOLS)
def test_the_fake_refuses_an_orphaned_call_as_the_real_api_does(server: FakeProviderServer, name: str) -> None:
    conv = _history([(2, False), (1, True)])
    orphan = conv[:1] + conv[2:]  # the first assistant turn dropped: its results are orphans
    refused = len(server.refused)

    async def send() -> Any:
        provider = _adapter(name, server)
        try:
            async for _ in provider.stream(ProviderRequest(system="s", messages=orphan, tools=(TOOL,), model="m")):
                pass
        except Exception as exc:  # noqa: BLE001 - the adapter's ProviderError is what is checked
            return exc
        finally:
            await provider.aclose()
        return None

    error = asyncio.run(send())
    assert error is not None and getattr(error, "kind", "") == "bad_request"
    assert len(server.refused) == refused + 1
