"""How full the context is survives a kernel restart: the Ask window's "context N% · cache M%" is read back
from the record (the last request's input against the model's window) when the agent is rebuilt, and an
attached client sees it before any new request."""

from __future__ import annotations

from desktop.ask_window import context_words
from tests.fakes import Text, Turn, Usage

from .attached import attach, run, workspace


def test_context_and_cache_shares_are_shown_again_after_a_restart(kernel_proc, srv, tmp_path):
    ws = workspace(tmp_path)
    # claude-sonnet-4-5 reads 200,000 tokens: 50,000 in is 25%, 45,000 of them from the cache
    srv.script(Turn(parts=(Text("an answer"),), usage=Usage(50_000, 10, cache_read=45_000)))

    async def before():
        k, _events = await attach(kernel_proc.home)
        try:
            agent = k.agents.spawn("measured", workspace=str(ws))
            k.agents.send(agent.id, "hello")
            return await k.agents.wait(agent.id)
        finally:
            await k.aclose()

    async def after(agent_id: str):
        k, _events = await attach(kernel_proc.home)
        try:
            return k.agents.get(agent_id)
        finally:
            await k.aclose()

    first = run(before())
    assert context_words(first) == "context 25% \u00b7 cache 90%"
    kernel_proc.stop()
    kernel_proc.start()
    again = run(after(first.id))
    assert again.state == "idle" and len(srv.requests) == 1  # nothing was asked of the model again
    assert again.context_tokens == 50_000 and context_words(again) == "context 25% \u00b7 cache 90%"
