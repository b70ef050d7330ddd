"""Slack through slack_sdk's Socket Mode (MIT): events arrive on a WebSocket, replies go by the Web API.

Socket Mode needs no public URL: ``apps.connections.open`` (a Web API call,
so the base URL option points it at a local fake in tests) returns the
WebSocket address. Every envelope is acknowledged right after the hub claims
its message (Slack re-sends an envelope not acknowledged within 3 s, and the
claim drops the copy). The token is the app-level token and the bot token,
separated by a space. In a channel the bot reads only messages that mention
it; Slack sends a mention twice (``message`` and ``app_mention``, same ``ts``),
which the claim also folds into one.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..model import ChannelConfig, ChannelError, ChatKind, Inbound

if TYPE_CHECKING:
    from .base import Deliver

MAX_DOWNLOAD = 20 * 1024 * 1024
FILES_HOST = "files.slack.com"


class SlackAdapter:
    kind = "slack"

    def __init__(self, config: ChannelConfig, token: str) -> None:
        parts = token.split()
        if len(parts) != 2 or not parts[0].startswith("xapp-") or not parts[1].startswith("xoxb-"):
            raise ChannelError("a Slack channel's token is the app token (xapp-…) and the bot token (xoxb-…), "
                               "separated by a space")
        self._config = config
        self._app_token, self._bot_token = parts
        self.account = ""
        self.own_ids: frozenset[str] = frozenset()
        self._web: Any = None
        self._socket: Any = None
        self._deliver: Deliver | None = None

    async def _connect(self) -> Any:
        if self._web is None:
            await asyncio.to_thread(importlib.import_module, "slack_sdk.socket_mode.aiohttp")
            from slack_sdk.web.async_client import AsyncWebClient

            base = self._config.base_url.rstrip("/") + "/api/" if self._config.base_url else "https://slack.com/api/"
            self._web = AsyncWebClient(token=self._bot_token, base_url=base)
        return self._web

    async def check(self) -> str:
        web = await self._connect()
        try:
            auth = await web.auth_test()
        except Exception as exc:  # noqa: BLE001 - one sentence for the user
            raise ChannelError(f"Slack refused the token or could not be reached: {type(exc).__name__}") from None
        return f"{auth.get('user')} ({auth.get('user_id')}) in {auth.get('team')}"

    async def start(self, deliver: Deliver) -> None:
        from slack_sdk.socket_mode.aiohttp import SocketModeClient

        web = await self._connect()
        auth = await web.auth_test()
        self.account = str(auth.get("user_id") or "")
        self.own_ids = frozenset({self.account, str(auth.get("bot_id") or "")} - {""})
        self._deliver = deliver
        self._socket = SocketModeClient(app_token=self._app_token, web_client=web)
        self._socket.socket_mode_request_listeners.append(self._on_request)
        await self._socket.connect()

    async def stop(self) -> None:
        if self._socket is not None:
            await self._socket.close()
        if self._web is not None and getattr(self._web, "session", None) is not None:
            await self._web.session.close()

    async def _on_request(self, client: Any, request: Any) -> None:
        from slack_sdk.socket_mode.response import SocketModeResponse

        inbound = self.parse(request.payload) if request.type == "events_api" else None
        if inbound is not None and self._deliver is not None:
            self._deliver(inbound)  # claimed: the copy Slack re-sends is dropped
        await client.send_socket_mode_response(SocketModeResponse(envelope_id=request.envelope_id))

    def parse(self, payload: Any) -> Inbound | None:
        event = payload.get("event") if isinstance(payload, dict) else None
        if not isinstance(event, dict) or event.get("type") not in ("message", "app_mention"):
            return None
        if event.get("subtype") not in (None, "file_share", "bot_message"):
            return None  # edits, deletions, joins: not new messages
        sender = str(event.get("user") or event.get("bot_id") or "")
        chat, ts, text = str(event.get("channel") or ""), str(event.get("ts") or ""), str(event.get("text") or "")
        kind: ChatKind = "dm" if event.get("channel_type") == "im" else "group"
        if kind == "group" and event.get("type") != "app_mention" and f"<@{self.account}>" not in text:
            return None
        found = event.get("files")
        files: list[Any] = found if isinstance(found, list) else []
        media = tuple(str(f.get("url_private_download") or f.get("url_private") or "")
                      for f in files if isinstance(f, dict))
        return Inbound(channel=self._config.name, chat=chat, chat_kind=kind, sender=sender, message_id=ts,
                       text=text, sender_is_bot=bool(event.get("bot_id")), media=tuple(m for m in media if m))

    async def send(self, chat: str, text: str) -> str:
        sent = await self._web.chat_postMessage(channel=chat, text=text)
        return str(sent.get("ts") or "")

    async def edit(self, chat: str, message_id: str, text: str) -> None:
        await self._web.chat_update(channel=chat, ts=message_id, text=text)

    async def send_file(self, chat: str, name: str, data: bytes, caption: str) -> str:
        raise ChannelError("sending files to Slack is not built yet (Telegram and WebChat take them)")

    async def typing(self, chat: str) -> None:
        return None  # Slack shows no typing indicator for bots on the Events API

    async def download(self, media_id: str) -> bytes:
        """A file's bytes, with the bot token, only from Slack's file host (or the configured base URL's)."""
        allowed = {FILES_HOST, urlsplit(self._config.base_url).netloc} - {""}
        if urlsplit(media_id).netloc not in allowed:
            raise ChannelError("a file outside Slack's file host")
        import aiohttp

        async with aiohttp.ClientSession() as http:
            async with http.get(media_id, headers={"Authorization": f"Bearer {self._bot_token}"},
                                allow_redirects=False) as r:
                r.raise_for_status()
                return (await r.content.read(MAX_DOWNLOAD + 1))[:MAX_DOWNLOAD]
