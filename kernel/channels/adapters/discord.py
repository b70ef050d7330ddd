"""Discord through hikari (MIT): the gateway WebSocket (zlib-stream) in, the REST API out.

``rest_url`` points hikari at a local fake in tests; the gateway address
comes from ``GET /gateway/bot``, so the fake serves that too. The token must
look like Discord's (``base64(bot id).….…``). Message content needs the
privileged MESSAGE_CONTENT intent, switched on for the bot in Discord's
developer portal. In a server (guild) the bot reads only messages that
mention it; direct messages are DMs. The gateway has nothing to acknowledge:
a resumed session can replay events, and the claim drops the copies.

A file goes as a message with one attachment (``rest.create_message(…,
attachment=hikari.Bytes(data, name))``: a multipart form holding
``payload_json`` and ``files[0]``), the caption as its content. Discord's
4xx answers are refusals (nothing posted); a 5xx after hikari's own retries,
or an answer that is not JSON, may follow a posted message.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import TYPE_CHECKING, Any

from ..model import ChannelConfig, ChannelError, ChatKind, Inbound

if TYPE_CHECKING:
    from .base import Deliver

MAX_DOWNLOAD = 20 * 1024 * 1024


class DiscordAdapter:
    kind = "discord"
    service = "Discord"
    max_file_bytes = 10 * 1024 * 1024  # Discord's attachment limit for a bot in a server without boosts

    def __init__(self, config: ChannelConfig, token: str) -> None:
        self._config = config
        self._token = token
        self.account = ""
        self.own_ids: frozenset[str] = frozenset()
        self._bot: Any = None
        self._deliver: Deliver | None = None

    async def _connect(self) -> Any:
        if self._bot is None:
            hikari = await asyncio.to_thread(importlib.import_module, "hikari")
            base = self._config.base_url.rstrip("/")
            try:
                self._bot = hikari.GatewayBot(
                    self._token, rest_url=(base + "/api/v10") if base else None, banner=None,
                    suppress_optimization_warning=True,
                    intents=hikari.Intents.ALL_UNPRIVILEGED | hikari.Intents.MESSAGE_CONTENT)
            except (ValueError, TypeError):
                raise ChannelError("that is not a Discord bot token") from None
        return self._bot

    async def check(self) -> str:
        bot = await self._connect()
        me = bot.get_me()
        return f"{me.username} ({me.id})" if me is not None else "not connected"

    async def start(self, deliver: Deliver) -> None:
        import hikari

        bot = await self._connect()
        self._deliver = deliver
        bot.subscribe(hikari.MessageCreateEvent, self._on_message)
        await bot.start()
        me = bot.get_me()
        self.account = str(me.id) if me is not None else ""
        self.own_ids = frozenset({self.account} - {""})

    async def stop(self) -> None:
        if self._bot is not None and self._bot.is_alive:
            await self._bot.close()

    async def _on_message(self, event: Any) -> None:
        inbound = self.parse(event.message)
        if inbound is not None and self._deliver is not None:
            self._deliver(inbound)

    def parse(self, m: Any) -> Inbound | None:
        kind: ChatKind = "dm" if m.guild_id is None else "group"
        text = m.content or ""
        if kind == "group" and f"<@{self.account}>" not in text and f"<@!{self.account}>" not in text:
            return None
        return Inbound(channel=self._config.name, chat=str(m.channel_id), chat_kind=kind, sender=str(m.author.id),
                       message_id=str(m.id), text=text, sender_name=str(m.author.username or ""),
                       sender_is_bot=bool(m.author.is_bot), media=tuple(str(a.url) for a in m.attachments))

    async def send(self, chat: str, text: str) -> str:
        sent = await self._bot.rest.create_message(int(chat), text)
        return str(sent.id)

    async def edit(self, chat: str, message_id: str, text: str) -> None:
        await self._bot.rest.edit_message(int(chat), int(message_id), text)

    async def send_file(self, chat: str, name: str, data: bytes, caption: str) -> str:
        """``data`` as an attachment named ``name`` in ``chat``, ``caption`` as the message; the message's id."""
        import hikari

        try:
            sent = await self._bot.rest.create_message(int(chat), caption or hikari.UNDEFINED,
                                                       attachment=hikari.Bytes(data, name))
        except hikari.ClientHTTPResponseError as exc:  # 4xx: Discord refused it, nothing was posted
            raise ChannelError(f"Discord refused the file ({int(exc.status)})") from None
        return str(sent.id)

    async def typing(self, chat: str) -> None:
        await self._bot.rest.trigger_typing(int(chat))

    async def download(self, media_id: str) -> bytes:
        import aiohttp
        from urllib.parse import urlsplit

        host = urlsplit(media_id).netloc
        allowed = {"cdn.discordapp.com", "media.discordapp.net", urlsplit(self._config.base_url).netloc} - {""}
        if host not in allowed:
            raise ChannelError("an attachment outside Discord's file hosts")
        async with aiohttp.ClientSession() as http:
            async with http.get(media_id, allow_redirects=False) as r:
                r.raise_for_status()
                return (await r.content.read(MAX_DOWNLOAD + 1))[:MAX_DOWNLOAD]
