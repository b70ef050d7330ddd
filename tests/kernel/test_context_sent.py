"""A request rebuilt from the ledger is the request that was sent, byte for byte, through every real SDK.

An agent works a tool loop against the loopback fake (a lease granted, its last minute reached between
two user turns, so state blocks are sent at the tail), then every ``request`` entry is rebuilt from the
record (``agents.sent``) and sent again through the same adapter to a second fake: each body's bytes
equal the first's. The system prompt stays byte-identical for the whole conversation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.agents.sent import sent_requests
from kernel.compose import build_kernel
from kernel.config.settings import Settings
from kernel.core.clock import ManualClock
from ledger import AgentSpawn, Ledger, ModelRequest, SystemPrompt
from tests.fakes import FakeProviderServer, Text, ToolCall, Turn, Usage

from .conftest import run
from .test_hostile_arguments import _adapter

PROTOCOLS = ["anthropic", "openai", "openai-chat", "gemini"]


def _script() -> tuple[Turn, ...]:
    return (Turn(parts=(Text("Looking."), ToolCall("fs_list", {"path": "."}))),
            Turn(parts=(ToolCall("fs_read", {"path": "notes.txt"}), ToolCall("fs_read", {"path": "gone.txt"}))),
            Turn(parts=(Text("Read it."),), usage=Usage(120, 8)),
            Turn(parts=(Text("Still here."),)))


def _system_of(body: dict) -> object:
    return body.get("system") or body.get("instructions") or body.get("systemInstruction") or body["messages"][0]


@pytest.mark.parametrize("name", PROTOCOLS)
def test_requests_rebuilt_from_the_record_are_the_bytes_sent(tmp_path: Path, agentdesk_home: Path, name: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("one\ntwo\n")
    clock = ManualClock()
    with Ledger(tmp_path / "ledger.db", clock=clock.now) as ledger, \
            FakeProviderServer() as first, FakeProviderServer() as second:
        first.script(*_script())

        async def work() -> None:
            provider = _adapter(name, first)
            kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws)), providers=lambda _n: provider,
                                  clock=clock)
            try:
                agent = kernel.agents.spawn("reader")
                kernel.leases.grant(agent.id, "fs.read", 300)
                kernel.agents.send(agent.id, "read the notes")
                await kernel.agents.wait(agent.id)
                clock.set_wall(clock.now() + 250)  # the lease's last minute: the state changes in kind
                kernel.agents.send(agent.id, "still there?")
                await kernel.agents.wait(agent.id)
            finally:
                await provider.aclose()

        run(work())
        first.assert_done()
        assert not first.refused
        spawn = next(e for e in ledger.page(kind="agent.spawn") if isinstance(e, AgentSpawn))
        rebuilt = sent_requests(ledger, spawn)
        assert len(rebuilt) == len(first.requests) == 4
        assert [e.state != "" for e, _ in rebuilt] == [True, False, False, True]  # only when it changed
        assert "less than a minute left" in rebuilt[3][0].state
        assert len(ledger.page(kind="prompt")) == 1  # one system prompt for the whole conversation

        second.script(*(Turn(parts=(Text("again"),)) for _ in rebuilt))

        async def resend() -> None:
            provider = _adapter(name, second)
            try:
                for _, request in rebuilt:
                    async for _event in provider.stream(request):
                        pass
            finally:
                await provider.aclose()

        run(resend())
        second.assert_done()
        for sent, again in zip(first.requests, second.requests):
            assert again.raw == sent.raw
        systems = [_system_of(r.body) for r in first.requests]
        assert all(s == systems[0] for s in systems)
        _assert_cache_hints(name, first.requests[2].body, spawn.actor)


def _assert_cache_hints(name: str, body: dict, agent_id: str) -> None:
    """Anthropic: breakpoints on the system prompt (1 h: a person may be asked) and the newest block;
    OpenAI: the conversation's prompt_cache_key, nothing stored; Gemini: the stable prefix alone."""
    if name == "anthropic":
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
        assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
        marked = [b for m in body["messages"] for b in m["content"] if "cache_control" in b]
        assert len(marked) == 1
    elif name == "openai":
        assert body["prompt_cache_key"] == agent_id and body["store"] is False
    elif name == "openai-chat":
        assert body["prompt_cache_key"] == agent_id
    else:
        assert "cache" not in str(sorted(body)).lower()


def test_a_prompt_entry_is_recorded_again_only_when_the_prompt_changes_in_kind(tmp_path: Path,
                                                                                agentdesk_home: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    clock = ManualClock()
    with Ledger(tmp_path / "ledger.db", clock=clock.now) as ledger, FakeProviderServer() as srv:
        srv.script(Turn(parts=(Text("one"),)), Turn(parts=(Text("two"),)), Turn(parts=(Text("three"),)))

        async def work() -> None:
            provider = _adapter("anthropic", srv)
            kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws)), providers=lambda _n: provider,
                                  clock=clock)
            try:
                agent = kernel.agents.spawn("reader")
                for text in ("first", "second"):
                    kernel.agents.send(agent.id, text)
                    await kernel.agents.wait(agent.id)
                    clock.set_wall(clock.now() + 86_400)  # a new day: the state block says it, not the prompt
                (ws / "AGENTS.md").write_text("Always answer in French.\n")  # the prompt changes in kind
                kernel.agents.send(agent.id, "third")
                await kernel.agents.wait(agent.id)
            finally:
                await provider.aclose()

        run(work())
        srv.assert_done()
        prompts = [e for e in reversed(ledger.page(kind="prompt")) if isinstance(e, SystemPrompt)]
        assert len(prompts) == 2 and "French" in prompts[1].text and "French" not in prompts[0].text
        bodies = [r.body for r in srv.requests]
        assert bodies[0]["system"] == bodies[1]["system"] != bodies[2]["system"]
        requests = [e for e in reversed(ledger.page(kind="request")) if isinstance(e, ModelRequest)]
        assert all(r.state for r in requests)  # the date moved each time


def test_no_prompt_cache_key_goes_to_a_local_openai_compatible_server(tmp_path: Path, agentdesk_home: Path) -> None:
    """openai-chat with a base URL in Settings is a server of the user's (Ollama, vLLM, llama.cpp): it has no
    use for OpenAI's prompt_cache_key and some refuse unknown fields, so none is sent; the record says so and
    the request rebuilt from it is still the one sent. OpenAI's own endpoint gets it (the test above)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    clock = ManualClock()
    with Ledger(tmp_path / "ledger.db", clock=clock.now) as ledger, FakeProviderServer() as srv:
        srv.script(Turn(parts=(Text("Hello."),)))

        async def work() -> None:
            provider = _adapter("openai-chat", srv)
            settings = Settings(workspace=str(ws), provider="openai-chat", models={"openai-chat": "qwen3:8b"},
                                base_urls={"openai-chat": srv.openai_base_url})
            kernel = build_kernel(ledger=ledger, settings=settings, providers=lambda _n: provider, clock=clock)
            try:
                agent = kernel.agents.spawn("local")
                kernel.agents.send(agent.id, "hello")
                assert (await kernel.agents.wait(agent.id)).state == "idle"
            finally:
                await provider.aclose()

        run(work())
        srv.assert_done()
        [sent] = srv.requests
        assert "prompt_cache_key" not in sent.body and sent.body["model"] == "qwen3:8b"
        spawn = next(e for e in ledger.page(kind="agent.spawn") if isinstance(e, AgentSpawn))
        [(entry, rebuilt)] = sent_requests(ledger, spawn)
        assert entry.cache_key == "" and rebuilt.cache_key == ""
