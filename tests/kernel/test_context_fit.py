"""The context kept inside the model's window: estimated before every request, old results cleared on the record.

A 10,000-token window (Settings' ``context_window``, as for a local model) and reads of ~2 KB files: the
estimate crosses 75% inside the tool loop, the results older than the last three exchanges become
placeholders naming their entries, a ``compaction`` entry (mode ``clear``) says so, and the conversation
and every request rebuilt from the record equal what the model was sent. A provider's context-length error
clears at once and retries once.
"""

from __future__ import annotations

import re

from kernel.agents.rebuild import conversation_of
from kernel.agents.sent import sent_requests
from kernel.context.clearing import MIN_CHARS
from kernel.core.errors import ProviderError
from kernel.core.messages import ToolResultPart
from kernel.providers.catalog import LOCAL_WINDOW, window_of
from kernel.providers.failures import status_error
from kernel.providers.scripted import ScriptedTurn, reply
from ledger import AgentSpawn, Compaction, ToolResult

from .conftest import run

FILE = "x" * 2_000


def _results(request) -> list[ToolResultPart]:
    return [p for m in request.messages for p in m.parts if isinstance(p, ToolResultPart)]


def _spawn(env) -> AgentSpawn:
    return next(e for e in env.ledger.page(kind="agent.spawn") if isinstance(e, AgentSpawn))


def test_old_results_are_cleared_inside_a_tool_loop_when_the_estimate_crosses_the_threshold(make_env):
    env = make_env(context_window=10_000, compact_at=0.75)
    for i in range(6):
        (env.workspace / f"f{i}.txt").write_text(FILE)
    reported = (2_000, 3_500, 5_000, 6_500, 8_000, 5_000)  # the last after the clearing: smaller again
    env.provider.script(*(reply(tools=(("fs_read", {"path": f"f{i}.txt"}),), usage=(reported[i], 10))
                          for i in range(6)), reply("done", usage=(5_500, 5)))
    a = env.kernel.agents.spawn("reader")
    env.kernel.leases.grant(a.id, "fs.read", 3600)

    async def go():
        env.kernel.agents.send(a.id, "read them all")
        await env.kernel.agents.wait(a.id)

    run(go())
    env.provider.assert_done()
    [clear] = [e for e in env.ledger.page(kind="compaction") if isinstance(e, Compaction)]
    assert clear.mode == "clear" and clear.trigger == "auto" and clear.tokens_after < clear.tokens_before
    # the request after the clearing: the oldest results are placeholders naming their entries, the last 3 intact
    requests = env.provider.requests
    cleared_at = next(i for i, r in enumerate(requests) if any(p.content.startswith("[cleared") for p in _results(r)))
    assert cleared_at == 5  # the first request after one whose reported input (8,000) crossed 7,500
    results = _results(requests[cleared_at])
    placeholders = [p for p in results if p.content.startswith("[cleared")]
    assert placeholders and len(results) - len(placeholders) == 3
    recorded = {e.seq for e in env.ledger.page(kind="result") if isinstance(e, ToolResult)}
    assert all(int(re.search(r"#(\d+)", p.content).group(1)) in recorded for p in placeholders)
    assert all(len(p.content) > MIN_CHARS for p in results if not p.content.startswith("[cleared"))
    # never twice in a row, and the record rebuilds the cleared conversation and every request exactly
    assert len(env.ledger.page(kind="compaction")) == 1
    assert conversation_of(env.ledger, _spawn(env)) == env.kernel.agents.conversation(a.id)
    assert [r for _, r in sent_requests(env.ledger, _spawn(env))] == requests


def _too_long() -> ScriptedTurn:
    error = status_error("anthropic", 400, "prompt is too long: 210000 tokens > 200000 maximum", model="m")
    assert error.kind == "too_long"
    return ScriptedTurn((error,))


def test_a_context_length_error_clears_at_once_and_retries_once(make_env):
    env = make_env()
    for i in range(5):
        (env.workspace / f"f{i}.txt").write_text(FILE)
    env.provider.script(*(reply(tools=(("fs_read", {"path": f"f{i}.txt"}),)) for i in range(5)),
                        _too_long(), reply("done"))
    a = env.kernel.agents.spawn("reader")
    env.kernel.leases.grant(a.id, "fs.read", 3600)

    async def go():
        env.kernel.agents.send(a.id, "read")
        return await env.kernel.agents.wait(a.id)

    assert run(go()).state == "idle"
    [clear] = env.ledger.page(kind="compaction")
    assert isinstance(clear, Compaction) and clear.trigger == "overflow"
    assert any(p.content.startswith("[cleared") for p in _results(env.provider.requests[-1]))


def test_a_second_overflow_in_a_row_fails_the_agent_with_the_reason(make_env):
    env = make_env()
    for i in range(5):
        (env.workspace / f"f{i}.txt").write_text(FILE)
    env.provider.script(*(reply(tools=(("fs_read", {"path": f"f{i}.txt"}),)) for i in range(5)),
                        _too_long(), _too_long())
    a = env.kernel.agents.spawn("reader")
    env.kernel.leases.grant(a.id, "fs.read", 3600)

    async def go():
        env.kernel.agents.send(a.id, "read")
        return await env.kernel.agents.wait(a.id)

    info = run(go())
    assert info.state == "failed" and "context window" in info.reason
    env.provider.assert_done()


def test_the_catalog_knows_windows_and_a_local_model_takes_the_users_value():
    assert window_of("anthropic", "claude-sonnet-4-5").context == 200_000
    assert window_of("gemini", "gemini-2.5-flash").context == 1_048_576
    assert window_of("openai-chat", "qwen3:8b", local=True) == LOCAL_WINDOW
    assert window_of("openai-chat", "qwen3:8b", local=True, user_set=65_536).context == 65_536
    assert isinstance(status_error("openai", 400, "This model's maximum context length is 128000 tokens", model="m"),
                      ProviderError)
    assert status_error("gemini", 400, "The input token count (2000000) exceeds the maximum number of tokens allowed",
                        model="m").kind == "too_long"
    assert status_error("anthropic", 400, "messages: roles must alternate", model="m").kind == "bad_request"


def test_a_threshold_changed_in_settings_applies_to_a_running_agent_at_its_next_request(make_env):
    """Settings → "Make the context smaller at" takes effect without a restart: the kernel reads the share
    before every request, so an agent at 60% of its window is summarized once the threshold drops to 50%."""
    from dataclasses import replace

    from kernel.config.settings import Settings

    env = make_env(context_window=10_000, compact_at=0.75)
    env.provider.script(reply(tools=(("fs_list", {"path": "."}),), usage=(6_000, 10)), reply("listed", usage=(6_000, 5)),
                        reply("Summary: the folder was listed.", usage=(1_000, 20)), reply("again", usage=(2_000, 5)))
    a = env.kernel.agents.spawn("lister")
    env.kernel.leases.grant(a.id, "fs.read", 3600)

    async def turn(text):
        env.kernel.agents.send(a.id, text)
        return await env.kernel.agents.wait(a.id)

    assert run(turn("list it")).state == "idle"
    assert env.ledger.page(kind="compaction") == []  # 6,000 of 10,000 is under 75%
    env.kernel.update_settings(replace(Settings(user_name="Ada", workspace=str(env.workspace)),
                                       context_window=10_000, compact_at=0.5))
    assert run(turn("list it again")).state == "idle"
    [entry] = env.ledger.page(kind="compaction")
    assert isinstance(entry, Compaction) and entry.mode == "summary" and entry.trigger == "auto"
    env.provider.assert_done()
