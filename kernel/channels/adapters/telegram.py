"""Telegram through aiogram (MIT; python-telegram-bot is LGPL and stays out), by long polling.

``getUpdates`` with an offset one past the last update confirms everything
before it, so the loop hands each update to the hub (which claims it) and
only then asks with the next offset: acknowledge after the claim, work after
that. The base URL option points aiogram at a local fake in tests
(``TelegramAPIServer.from_base``). In a group the bot reads only messages that
mention it or answer it; everything else in a group is not for it.
"""

from __future__ import annotations

import asyncio
import importlib
import io
import sys
from typing import TYPE_CHECKING, Any

from ..model import ChannelConfig, ChannelError, ChatKind, Inbound

if TYPE_CHECKING:
    from .base import Deliver

POLL_S = 25          # Telegram holds a long poll up to this long
MAX_DOWNLOAD = 20 * 1024 * 1024
RETRY_S = 5.0


class TelegramAdapter:
    kind = "telegram"
    service = "Telegram"
    max_file_bytes = 50 * 1000 * 1000  # the Bot API's limit for a file a bot uploads

    def __init__(self, config: ChannelConfig, token: str, poll_s: int = POLL_S) -> None:
        self._config = config
        self._token = token
        self._bot: Any = None
        self._poll_s = int(config.options.get("poll_s", poll_s))
        self.account = ""
        self.own_ids: frozenset[str] = frozenset()
        self._username = ""
        self._task: asyncio.Task[None] | None = None

    async def _connect(self) -> Any:
        """The aiogram client, built once: the library is imported in a worker thread, since building its
        pydantic models took 7.5 s of CPU here (2026-12-03) and the kernel's loop must not stop that long."""
        if self._bot is not None:
            return self._bot
        await asyncio.to_thread(importlib.import_module, "aiogram")
        from aiogram import Bot
        from aiogram.client.session.aiohttp import AiohttpSession
        from aiogram.client.telegram import TelegramAPIServer
        from aiogram.utils.token import TokenValidationError

        base = self._config.base_url
        session = AiohttpSession(api=TelegramAPIServer.from_base(base)) if base else AiohttpSession()
        try:
            self._bot = Bot(self._token, session=session)
        except TokenValidationError:
            await session.close()
            raise ChannelError("that is not a Telegram bot token (123456:ABC…)") from None
        return self._bot

    async def check(self) -> str:
        await self._connect()
        try:
            me = await self._bot.get_me()
        except Exception as exc:  # noqa: BLE001 - any failure is one sentence for the user
            raise ChannelError(f"Telegram refused the token or could not be reached: {type(exc).__name__}") from None
        return f"@{me.username} ({me.first_name}, id {me.id})"

    async def start(self, deliver: Deliver) -> None:
        await self._connect()
        me = await self._bot.get_me()
        self.account = str(me.id)
        self.own_ids = frozenset({self.account})
        self._username = (me.username or "").lower()
        self._task = asyncio.ensure_future(self._poll(deliver))

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait({self._task})
        if self._bot is not None:
            await self._bot.session.close()

    async def _poll(self, deliver: Deliver) -> None:
        offset: int | None = None
        while True:
            try:
                updates = await self._bot.get_updates(offset=offset, timeout=self._poll_s,
                                                      allowed_updates=["message"], request_timeout=self._poll_s + 10)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the service is away: try again, said in kernel.log
                print(f"agentdesk kernel: telegram {self._config.name}: {type(exc).__name__}", file=sys.stderr)
                await asyncio.sleep(RETRY_S)
                continue
            for update in updates:
                offset = update.update_id + 1
                inbound = self.parse(update)
                if inbound is not None:
                    deliver(inbound)

    def parse(self, update: Any) -> Inbound | None:
        """An update as an ``Inbound``, or None when it is not a message for this bot."""
        m = update.message
        if m is None or m.from_user is None:
            return None
        kind: ChatKind = "dm" if m.chat.type == "private" else "group"
        text = m.text or m.caption or ""
        if kind == "group" and not self._for_me(m, text):
            return None
        media: tuple[str, ...] = ()
        if m.photo:
            media = (m.photo[-1].file_id,)
        elif m.document is not None:
            media = (m.document.file_id,)
        name = m.from_user.username or m.from_user.first_name or ""
        return Inbound(channel=self._config.name, chat=str(m.chat.id), chat_kind=kind, sender=str(m.from_user.id),
                       message_id=str(m.message_id), text=text, sender_name=name,
                       sender_is_bot=bool(m.from_user.is_bot), media=media)

    def _for_me(self, m: Any, text: str) -> bool:
        replied = m.reply_to_message
        if replied is not None and replied.from_user is not None and str(replied.from_user.id) == self.account:
            return True
        return bool(self._username) and f"@{self._username}" in text.lower()

    async def send(self, chat: str, text: str) -> str:
        sent = await self._bot.send_message(chat_id=int(chat), text=text)
        return str(sent.message_id)

    async def edit(self, chat: str, message_id: str, text: str) -> None:
        await self._bot.edit_message_text(text=text, chat_id=int(chat), message_id=int(message_id))

    async def send_file(self, chat: str, name: str, data: bytes, caption: str) -> str:
        from aiogram.types import BufferedInputFile

        sent = await self._bot.send_document(chat_id=int(chat), document=BufferedInputFile(data, filename=name),
                                             caption=caption or None)
        return str(sent.message_id)

    async def typing(self, chat: str) -> None:
        await self._bot.send_chat_action(chat_id=int(chat), action="typing")

    async def download(self, media_id: str) -> bytes:
        found = await self._bot.get_file(media_id)
        if found.file_path is None or (found.file_size or 0) > MAX_DOWNLOAD:
            raise ChannelError("the file is not available or too large")
        out = io.BytesIO()
        await self._bot.download_file(found.file_path, destination=out)
        return out.getvalue()[:MAX_DOWNLOAD]
