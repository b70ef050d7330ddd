"""A long session with six forced compactions on all four protocols, through the real SDKs (issue 24).

The full 300 model turns took ~25 s a protocol on a loaded 2-core machine (benchmarks/long_session_bench.py
runs them and prints the same checks); here the same session runs 42 turns with the same six compactions
(one every six requests, inside tool loops and at their ends), one kernel in this process per protocol and
one fake server for the module. The fake refuses an orphaned call or result as the real APIs do; the
record and the wire are then read by ``long_session.check``: every promise kept, or the broken ones named.
"""

from __future__ import annotations

import pytest

from kernel.core.clock import ManualClock
from ledger import Ledger
from tests.fakes import FakeProviderServer

from .conftest import run
from .long_session import Plan, check, drive, script
from .test_hostile_arguments import _adapter

PLAN = Plan(turns=42, compactions=6)


@pytest.fixture(scope="module")
def server():
    with FakeProviderServer() as srv:
        yield srv


@pytest.mark.parametrize("name", ["anthropic", "openai", "openai-chat", "gemini"])
def test_six_forced_compactions_keep_pairs_prompt_frontier_and_leases(server, tmp_path, name):
    assert server.pending_turns == 0
    since = (len(server.requests), len(server.refused))
    script(server, PLAN)
    ws = tmp_path / "ws"
    ws.mkdir()
    clock = ManualClock()
    with Ledger(tmp_path / "ledger.db", clock=clock.now) as ledger:
        async def go():
            provider = _adapter(name, server)
            try:
                return await drive(provider, ledger, ws, clock, PLAN)
            finally:
                await provider.aclose()

        session = run(go())
        assert check(server, since, ledger, session, PLAN) == []
        assert len(server.requests) - since[0] == PLAN.turns + PLAN.compactions


def test_the_checks_catch_a_broken_session(server, tmp_path):
    """The checks are not vacuous: a session whose usage never crosses the threshold breaks them."""
    since = (len(server.requests), len(server.refused))
    quiet = Plan(turns=9, compactions=0)
    script(server, quiet)
    ws = tmp_path / "ws"
    ws.mkdir()
    clock = ManualClock()
    with Ledger(tmp_path / "ledger.db", clock=clock.now) as ledger:
        async def go():
            provider = _adapter("openai-chat", server)
            try:
                return await drive(provider, ledger, ws, clock, quiet)
            finally:
                await provider.aclose()

        session = run(go())
        assert check(server, since, ledger, session, quiet) == []
        problems = check(server, since, ledger, session, Plan(turns=9, compactions=1))
    assert any("was not followed at once by a compaction" in p for p in problems)
    assert any("compactions on record" in p for p in problems)
