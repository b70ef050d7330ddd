"""An attached client keeps today's spend until a provider request is recorded, and fetches the new figure
off its caller's way: the desktop's status line asks on every ledger append, and a blocking round trip
while the kernel streams to twenty windows stalled the desktop's loop."""

from __future__ import annotations

import asyncio

from kernel.providers.scripted import reply
from kernel.service.client import RemoteKernel


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, timeout=120))


class Counted:
    """The real call channel, counting the blocking round trips made through it."""

    def __init__(self, channel):
        self.channel, self.calls = channel, []

    def __getattr__(self, name):
        return getattr(self.channel, name)

    def call(self, method, params):
        self.calls.append(method)
        return self.channel.call(method, params)


def test_spend_today_is_asked_once_then_refreshed_by_the_request_record(thread_server):
    run(_asked_once(thread_server))


async def _asked_once(thread_server):
    client = await RemoteKernel(thread_server.path, client="status").start()
    counted = Counted(client._sync)
    client._sync = counted
    appended = asyncio.Event()
    client.subscribe(lambda e: appended.set() if getattr(getattr(e, "entry", None), "KIND", "") == "request" else None)
    try:
        assert client.agents.spend_today().tokens == 0
        assert client.agents.spend_today().tokens == 0
        assert counted.calls.count("agents.spend_today") == 1  # the second answer came from what the first said

        thread_server.provider.script(reply("hello", usage=(30, 12)))
        agent = client.agents.spawn("spender", provider="scripted", model="m")
        client.agents.send(agent.id, "hi")
        await client.agents.wait(agent.id)
        await appended.wait()
        assert client._spend_fetch is not None
        await client._spend_fetch  # fetched over the events connection, not through the blocking channel

        asked = counted.calls.count("agents.spend_today")
        assert client.agents.spend_today().tokens == 42
        assert counted.calls.count("agents.spend_today") == asked == 1

        other = await RemoteKernel(thread_server.path, client="check").start()
        try:
            assert other.agents.spend_today() == client.agents.spend_today()
        finally:
            await other.aclose()
    finally:
        await client.aclose()


def test_an_answer_older_than_the_last_request_is_not_kept(thread_server):
    """Two requests recorded while a fetch is under way: the figure kept includes both."""
    run(_both_counted(thread_server))


async def _both_counted(thread_server):
    client = await RemoteKernel(thread_server.path, client="status").start()
    seen = []
    both = asyncio.Event()

    def on(e):
        if getattr(getattr(e, "entry", None), "KIND", "") == "request":
            seen.append(e)
            if len(seen) == 2:
                both.set()

    client.subscribe(on)
    try:
        thread_server.provider.script(reply("one", usage=(10, 1)), reply("two", usage=(20, 2)))
        first = client.agents.spawn("a", provider="scripted", model="m")
        second = client.agents.spawn("b", provider="scripted", model="m")
        client.agents.send(first.id, "go")
        client.agents.send(second.id, "go")
        await asyncio.gather(client.agents.wait(first.id), client.agents.wait(second.id))
        await both.wait()
        while client._spend_fetch is not None and not client._spend_fetch.done():
            await client._spend_fetch
        assert client.agents.spend_today().tokens == 33
    finally:
        await client.aclose()
