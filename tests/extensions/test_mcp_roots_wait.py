"""A call after a change of workspace waits for a server's re-ask only while the server re-asks: one that
let a notice pass is taken to ask per call and is not waited for again (kernel/extensions/mcp_roots.py)."""

from __future__ import annotations

import asyncio

from kernel.extensions import mcp_roots
from kernel.extensions.mcp_roots import Roots


def test_a_server_that_reasks_is_waited_for_and_one_that_does_not_only_once(monkeypatch, tmp_path):
    monkeypatch.setattr(mcp_roots, "REASK_WAIT_S", 0.05)  # the one wait that runs out, kept short

    async def main() -> None:
        caching = Roots(lambda _agent: str(tmp_path))
        caching.expect()
        asyncio.get_running_loop().call_soon(caching.answer, "a1")  # the server asks again after the notice
        assert await caching.reasked() and caching.reasks
        assert caching.told == tmp_path.resolve().as_uri()

        per_call = Roots(lambda _agent: str(tmp_path))
        per_call.expect()
        assert not await per_call.reasked()  # it let the notice pass
        assert not per_call.reasks
        monkeypatch.setattr(mcp_roots, "REASK_WAIT_S", 3600.0)  # were it waited for again, this test would hang
        per_call.expect()
        assert not await per_call.reasked()  # not waited for again

    asyncio.run(main())


def test_no_single_caller_means_no_roots():
    assert Roots(lambda _agent: None).of("a1") == [] and Roots(lambda _agent: "/x").of("") == []
