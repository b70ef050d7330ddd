"""Every ``request`` entry says who answered: the requested and the served provider and model (the
served model as the real SDK's reply named it), the attempt and the route's reason — for a reply
that completed and for one that broke off mid-stream (model routes, issue 25, point 7)."""

from __future__ import annotations

from pathlib import Path

from kernel.compose import build_kernel
from kernel.config.settings import Settings
from kernel.core.clock import ManualClock
from ledger import Ledger, ModelRequest
from tests.fakes import Cut, FakeProviderServer, Text, Turn

from .conftest import run
from .test_hostile_arguments import _adapter


def test_request_entries_name_the_requested_and_the_served_model(tmp_path: Path, agentdesk_home: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    clock = ManualClock()
    with Ledger(tmp_path / "ledger.db", clock=clock.now) as ledger, FakeProviderServer() as srv:
        srv.script(Turn(parts=(Text("answered by a snapshot", chunks=3),), served_model="claude-sonnet-4-5-20250929"),
                   Turn(parts=(Text("one two three four five six", chunks=6),), fault=Cut(4),
                        served_model="claude-sonnet-4-5-20250929"))

        async def body() -> list[str]:
            provider = _adapter("anthropic", srv)
            kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws), max_retries=0),
                                  providers=lambda _n: provider, clock=clock)
            try:
                agent = kernel.agents.spawn("who", provider="anthropic", model="claude-sonnet-4-5")
                states = []
                for text in ("hello", "again"):
                    kernel.agents.send(agent.id, text)
                    states.append((await kernel.agents.wait(agent.id)).state)
                return states
            finally:
                await provider.aclose()

        assert run(body()) == ["idle", "failed"]
        srv.assert_done()
        ok, broke = [e for e in reversed(ledger.page(kind="request")) if isinstance(e, ModelRequest)]
    for entry in (ok, broke):
        assert (entry.requested_provider, entry.requested_model) == ("anthropic", "claude-sonnet-4-5")
        assert (entry.provider, entry.model) == ("anthropic", "claude-sonnet-4-5")
        assert (entry.served_provider, entry.served_model) == ("anthropic", "claude-sonnet-4-5-20250929")
        assert (entry.attempt, entry.route_reason, entry.route) == (1, "", "agent")
    assert ok.status == "ok" and broke.status == "error"
    assert ok.to_json()["served_model"] == "claude-sonnet-4-5-20250929"  # on `agentdesk ledger --json` too
