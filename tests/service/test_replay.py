"""A client that comes back asks for what it missed: every ledger entry after its seq, in order,
then the live events; none lost, none twice."""

from __future__ import annotations

import asyncio

from kernel.api import LedgerAppended
from kernel.service.client import RemoteKernel

from .attached import Recorder

RECORDS = 1100  # more than two replay pages


def test_subscribe_since_a_seq_replays_the_ledger_then_goes_live(thread_server):
    async def record(n: int) -> str:
        agent = thread_server.kernel.agents.spawn("busy")
        for _ in range(n):
            thread_server.kernel.leases.grant(agent.id, "fs.read", 60)
        return agent.id

    agent_id = thread_server.call(record(RECORDS))
    total = thread_server.kernel.ledger.last_seq()

    async def client():
        k = RemoteKernel(thread_server.path, client="late")
        recorder = Recorder("fs.write")
        k.subscribe(recorder)
        await k.start(since_seq=5)
        k.leases.grant(agent_id, "fs.write", 60)  # a live one after the replay
        await recorder.done.wait()
        await k.aclose()
        return recorder.seen

    seen = asyncio.run(asyncio.wait_for(client(), timeout=120))
    seqs = [e.entry.seq for e in seen if isinstance(e, LedgerAppended)]
    assert seqs[:total - 5] == list(range(6, total + 1))  # the replay: every missed entry, oldest first
    assert len(seqs) == len(set(seqs))                  # nothing twice
