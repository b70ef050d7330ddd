"""A request that fails is on the record with the provider's request id, through every real SDK.

The fake answers with an error status and a request-id header (``tests/fakes``); the agent fails, and
its ``request`` entry (status ``error``) names that id, so a user can quote it to the provider's support.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.core.clock import ManualClock
from kernel.compose import build_kernel
from kernel.config.settings import Settings
from ledger import Ledger, ModelRequest
from tests.fakes import FakeProviderServer, HttpError, Turn

from .conftest import run
from .test_hostile_arguments import _adapter


@pytest.mark.parametrize("name", ["anthropic", "openai", "openai-chat", "gemini", "gemini@host"])
def test_a_refused_request_records_its_request_id(tmp_path: Path, agentdesk_home: Path, name: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    clock = ManualClock()
    with Ledger(tmp_path / "ledger.db", clock=clock.now) as ledger, \
            FakeProviderServer(expected_key="test-key") as srv:
        srv.script(Turn(fault=HttpError(400, message="the request was malformed")))

        async def body() -> str:
            provider = _adapter(name, srv)
            kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws)), providers=lambda _n: provider,
                            clock=clock)
            try:
                agent = kernel.agents.spawn("refused")
                kernel.agents.send(agent.id, "go")
                return (await kernel.agents.wait(agent.id)).state
            finally:
                await provider.aclose()

        assert run(body()) == "failed"
        srv.assert_done()
        [request] = ledger.page(kind="request")
    assert isinstance(request, ModelRequest) and request.status == "error"
    assert request.request_id == srv.error_request_ids[0] and "malformed" in request.error
