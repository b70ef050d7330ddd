"""Shots of the screens issues 24, 27 and 29 added (docs/make_screenshots.py calls these in its scenario):

- ``ask-window-compacted``: an Ask window whose header says how full the context is and how much came from
  cache, with the divider a compaction leaves ("earlier conversation summarized: …").
- ``mcp-question``: an MCP server's question (elicitation) brought up, its titled choices shown by title.
- ``inbox-pairing`` and ``settings-channels``: a WebChat visitor's pairing request in the Inbox, and
  Settings → Channels with a paired-senders-only channel beside one the user made OPEN (red, in words).

Everything runs on the scenario's in-process kernel with scripted providers; the WebChat visitor is a real
aiohttp client on loopback, as a browser page would be one.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Awaitable, Callable

Until = Callable[..., Awaitable[None]]

# The reference "everything" server's form (its trigger-elicitation-request tool), cut to what shows choices.
QUESTION_SCHEMA: dict[str, Any] = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string", "title": "Full name"},
    "check": {"type": "boolean", "title": "Agree to the terms", "default": False},
    "hero": {"type": "string", "title": "Favourite hero", "default": "hero-1",
             "oneOf": [{"const": "hero-1", "title": "Superman"}, {"const": "hero-2", "title": "Green Lantern"},
                       {"const": "hero-3", "title": "Wonder Woman"}]},
    "pet": {"type": "string", "title": "Favourite pet", "enum": ["pet-1", "pet-2", "pet-3"],
            "enumNames": ["Cats", "Dogs", "Birds"], "default": "pet-2"},
    "count": {"type": "integer", "title": "How many", "default": 42}}}


async def compacted_ask_window(desk: Any, agent: Callable[..., str], providers: dict[str, Any], until: Until,
                               cam: Any) -> None:
    """A conversation of two cached answers, then "Compact now": the header and the divider."""
    from kernel.providers.base import StreamEnd, TextChunk, UsageReport
    from kernel.providers.scripted import ScriptedTurn, reply

    if not cam.wants("ask-window-compacted"):
        return

    def cached(text: str, prompt: int, read: int) -> ScriptedTurn:
        return ScriptedTurn((UsageReport(input_tokens=prompt, output_tokens=0, cache_read_tokens=read),
                             TextChunk(text), UsageReport(output_tokens=420), StreamEnd("end_turn")))

    k = desk.kernel
    planner = agent("planner", provider="anthropic")
    providers["scripted-planner"].script(
        cached("The release has three open items: the changelog, the version bump and the tag.", 61_000, 54_000),
        cached("The changelog now lists the two fixes; the version is 2.4.0.", 82_000, 76_300),
        reply("The user is preparing release 2.4.0: changelog written (two fixes), version bumped; the tag is "
              "still to do.", usage=(3_000, 120)))
    window = desk.window.window_for(planner)
    window.move(60, 50)
    for text in ("what is left before the release?", "write the changelog and bump the version"):
        k.agents.send(planner, text)
        await until(lambda: k.agents.get(planner).state == "idle")
    window.compact_button.click()  # "Compact now", beside Raise budget
    await until(lambda: bool(window.transcript.dividers))
    await until(lambda: k.agents.get(planner).state == "idle")
    await cam.shoot("ask-window-compacted", window, settle=0.2)


async def mcp_question(cam: Any) -> None:
    """The question dialog as Ctrl+Shift+A brings it up."""
    from desktop.question_dialog import QuestionDialog
    from kernel.extensions.mcp_elicit import question_of

    if not cam.wants("mcp-question"):
        return
    question = question_of("everything", "Please provide inputs for the following fields:", QUESTION_SCHEMA)
    dialog = QuestionDialog(question, lambda action, content: None, hold_ms=0)
    dialog.inputs["name"].setText("Grace Hopper")
    dialog.show()
    await cam.shoot("mcp-question", dialog, settle=0.1)
    dialog.close()


class _Visitor:
    """A WebChat page's visitor: a same-origin session token, the socket, one message."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.got: list[dict[str, Any]] = []
        self._http: Any = None
        self._ws: Any = None
        self._reader: Any = None

    async def say(self, text: str, mid: str) -> None:
        import aiohttp

        self._http = aiohttp.ClientSession()
        async with self._http.post(self.base + "/session", headers={"Origin": self.base}) as r:
            token = (await r.json())["token"]
        self._ws = await self._http.ws_connect(self.base.replace("http", "ws") + "/ws",
                                               headers={"Origin": self.base}, protocols=("agentdesk", f"token.{token}"))
        self._reader = asyncio.ensure_future(self._read())
        await self._ws.send_str(json.dumps({"type": "message", "id": mid, "text": text}))

    async def _read(self) -> None:
        async for msg in self._ws:
            self.got.append(json.loads(msg.data))

    async def close(self) -> None:
        await self._ws.close()
        await self._http.close()


async def channel_shots(desk: Any, until: Until, cam: Any) -> None:
    """Two WebChat channels (paired-only, and one made OPEN), a visitor's pairing request in the Inbox, and
    Settings → Channels."""
    from kernel.channels.model import ChannelConfig

    if not cam.wants("inbox-pairing", "settings-channels"):
        return
    k = desk.kernel
    web = await k.channels.add(ChannelConfig(name="web", kind="webchat", listen="127.0.0.1:0"))
    await k.channels.add(ChannelConfig(name="lobby", kind="webchat", listen="127.0.0.1:0", access="open"))
    visitors = [_Visitor(web.address.rstrip("/")) for _ in range(2)]
    try:
        for i, visitor in enumerate(visitors):
            await visitor.say("hello, can you check my order?", f"m{i}")
        await until(lambda: all(v.got for v in visitors))
        window = desk.window.open_automations()
        window.move(40, 40)
        await until(lambda: window.pairing.table.rowCount() == 2)
        window.pairing.table.selectRow(0)
        await cam.shoot("inbox-pairing", window, settle=0.2)
        window.close()
        settings = desk.window.open_settings()
        page = settings.open_channels()
        page.move(50, 50)
        await cam.shoot("settings-channels", page, settle=0.2)
        page.close()
        settings.close()
    finally:
        for visitor in visitors:
            await visitor.close()
