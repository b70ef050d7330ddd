"""Chat channels' pairing requests in the desktop Inbox, attached to a real kernel process: two web visitors
get codes, the Inbox lists them (channel, sender, DM or group, code, time left), Approve answers the waiting
message as `agentdesk channel approve` does, Deny drops the other, Revoke ends the pairing in one action, and
Settings → Channels shows an open channel in the error colour and in words."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import aiohttp

from desktop import style
from kernel.channels.model import ChannelConfig
from kernel.providers.scripted import reply


class Visitor:
    """A WebChat visitor as the page is one: a same-origin session token, the socket, a message."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.got: list[dict[str, Any]] = []
        self.http: aiohttp.ClientSession | None = None
        self.ws: Any = None
        self.reader: asyncio.Future[None] | None = None

    async def say(self, text: str, mid: str) -> None:
        self.http = aiohttp.ClientSession()
        async with self.http.post(self.base + "/session", headers={"Origin": self.base}) as r:
            token = (await r.json())["token"]
        self.ws = await self.http.ws_connect(self.base.replace("http", "ws") + "/ws", headers={"Origin": self.base},
                                             protocols=("agentdesk", f"token.{token}"))
        self.reader = asyncio.ensure_future(self._read())
        await self.ws.send_str(json.dumps({"type": "message", "id": mid, "text": text}))

    async def _read(self) -> None:
        async for msg in self.ws:
            self.got.append(json.loads(msg.data))

    def said(self) -> list[str]:
        return [m["text"] for m in self.got if m["type"] == "message"]

    async def close(self) -> None:
        await self.ws.close()
        await self.http.close()  # type: ignore[union-attr]


def done(main, coro: Any) -> Any:
    future = asyncio.ensure_future(coro)
    main.until(future.done)
    return future.result()


def test_pairing_requests_are_answered_from_the_inbox_and_an_open_channel_is_red_in_settings(main, qtbot):
    view = done(main, main.kernel.channels.add(ChannelConfig(name="web", kind="webchat", listen="127.0.0.1:0")))
    base = view.address.rstrip("/")
    alice, eve = Visitor(base), Visitor(base)
    try:
        done(main, alice.say("hello", "a1"))
        done(main, eve.say("let me in", "e1"))
        main.until(lambda: len(alice.said()) == 1 and len(eve.said()) == 1)
        [alice_code] = re.findall(r"Pairing code: (\w{8})", alice.said()[0])
        window = main.window.open_automations()
        panel = window.pairing
        main.until(lambda: panel.table.rowCount() == 2 and main.window.inbox_label.text() == "Inbox: 2 items")
        assert panel.isVisibleTo(window)
        rows = [[panel.table.item(r, c).text() for c in range(5)] for r in range(2)]
        assert {r[3] for r in rows} == {p.code for p in main.kernel.channels.pending()}
        for channel, sender, chat, _code, left in rows:
            assert (channel, chat) == ("web", "direct message") and sender.startswith("web visitor ")
            assert re.fullmatch(r"(\d+ min|1 h( \d+ min)?) left", left), left
        alice_row = [r[3] for r in rows].index(alice_code)
        main.server.script(reply("Hello, Alice."))
        panel.table.selectRow(alice_row)
        panel.buttons["approve"].click()  # as `agentdesk channel approve CODE`: her waiting message is answered
        main.until(lambda: alice.said()[-1:] == ["Hello, Alice."])
        [grant] = main.record.page("pairing.grant")
        assert grant.actor == "user" and grant.code == alice_code and "Paired:" in panel.status.text()
        main.until(lambda: panel.table.rowCount() == 1)
        panel.table.selectRow(0)
        panel.buttons["deny"].click()
        main.until(lambda: panel.table.rowCount() == 0 and main.kernel.channels.pending() == [])
        [denied] = main.record.page("pairing.revoke")
        assert denied.actor == "user" and "denied" in denied.reason and len(eve.said()) == 1
        paired = panel.paired
        main.until(lambda: paired.table.rowCount() == 1)
        paired.table.selectRow(0)
        paired.revoke_button.click()  # one action
        main.until(lambda: main.kernel.channels.paired() == [] and paired.table.rowCount() == 0)
        assert len(main.record.page("pairing.revoke")) == 2 and "Revoked:" in panel.status.text()
    finally:
        done(main, alice.close())
        done(main, eve.close())
    # Settings → Channels: the open channel in the error colour and in words; the paired one plain
    done(main, main.kernel.channels.add(ChannelConfig(name="lobby", kind="webchat", listen="127.0.0.1:0",
                                                      access="open")))
    settings = main.window.open_settings()
    page = settings.open_channels()
    try:
        table = page.table
        names = [table.item(r, 0).text() for r in range(table.rowCount())]
        lobby, web = names.index("lobby"), names.index("web")
        assert table.item(lobby, 2).text() == "⚠ OPEN to anyone — no pairing"
        assert table.item(lobby, 2).foreground().color() == style.role_colour("error", page.palette())
        assert "paired senders only" in table.item(web, 2).text()
        assert table.item(web, 2).foreground().color() != style.role_colour("error", page.palette())
    finally:
        page.close()
        settings.close()


def test_a_codes_time_left_in_words():
    from desktop.pairing_inbox import time_left

    assert [time_left(s) for s in (0, 30, 600, 3600, 3660, 7199)] == [
        "expired", "1 min left", "10 min left", "1 h left", "1 h 1 min left", "1 h 59 min left"]
