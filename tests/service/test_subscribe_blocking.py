"""An events connection subscribed with a blocking socket (``agentdesk ask`` spawns and sends before it
imports asyncio), then taken over by the loop: every event reaches the subscribers, in order, once."""

from __future__ import annotations

import asyncio
import socket

import pytest

from kernel.api import LeaseGranted, LedgerAppended, TextDelta
from kernel.service import codec, protocol as p
from kernel.service.channel import Subscribed, SyncChannel, subscribe_blocking
from kernel.service.client import RemoteKernel

from .attached import Recorder


def test_events_between_the_blocking_subscribe_and_the_loop_are_all_delivered(thread_server):
    sync = SyncChannel(thread_server.path, "ask")
    sync.connect()
    subscribed = subscribe_blocking(thread_server.path, "ask", False)
    # What ask does before the loop: the kernel publishes these while nobody reads the events socket.
    agent_id = sync.call_raw("agents.spawn", {"name": "early"})["id"]
    for _ in range(50):
        sync.call_raw("leases.grant", {"agent_id": agent_id, "scope": "fs.read", "duration_s": 60.0})
    total = thread_server.kernel.ledger.last_seq()

    async def follow() -> list:
        kernel = RemoteKernel(thread_server.path, client="ask")
        recorder = Recorder("fs.write")
        kernel.subscribe(recorder)
        await kernel.start_subscribed(sync, subscribed)
        assert kernel.kernel_pid == sync.hello["pid"]
        kernel.leases.grant(agent_id, "fs.write", 60)  # a call on the channel it took over
        await recorder.done.wait()
        await kernel.aclose()
        return recorder.seen

    seen = asyncio.run(asyncio.wait_for(follow(), timeout=60))
    grants = [e.lease.scope for e in seen if isinstance(e, LeaseGranted)]
    assert grants == ["fs.read"] * 50 + ["fs.write"]
    seqs = [e.entry.seq for e in seen if isinstance(e, LedgerAppended)]
    assert seqs == sorted(set(seqs)) and seqs[-1] > total  # in order, none twice, the live one last


def test_bytes_read_past_the_subscribe_reply_come_before_the_sockets_own(tmp_path):
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)

    def event(seq: int, text: str) -> bytes:
        return codec.dumps(p.notification("event", {"seq": seq, "event": codec.encode(TextDelta("a1", text))}))

    reply = p.result(-1, {"last_seq": 7})
    theirs.sendall(event(9, "second"))  # already in the socket when the loop takes it over

    async def follow() -> list:
        kernel = RemoteKernel(tmp_path / "unused.sock", client="ask")
        seen: list = []
        both = asyncio.Event()

        def on(event) -> None:
            seen.append(event)
            if len(seen) == 2:
                both.set()

        kernel.subscribe(on)
        await kernel._events.adopt(Subscribed(ours, (reply,), event(8, "first")))
        await both.wait()
        assert kernel._events.last_seq == 9
        await kernel._events.aclose()
        return seen

    seen = asyncio.run(asyncio.wait_for(follow(), timeout=30))
    theirs.close()
    assert [e.text for e in seen] == ["first", "second"]


def test_no_kernel_is_not_running(tmp_path):
    with pytest.raises(p.NotRunning):
        subscribe_blocking(tmp_path / "none.sock", "ask", False)


def test_a_refused_subscription_raises_the_kernels_error(thread_server):
    with pytest.raises(p.ServiceError, match="since_seq") as refused:
        subscribe_blocking(thread_server.path, "ask", False, since_seq=-3)
    assert refused.value.code == p.INVALID_PARAMS
