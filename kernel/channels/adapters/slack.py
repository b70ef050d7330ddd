"""Slack through slack_sdk's Socket Mode (MIT): events arrive on a WebSocket, replies go by the Web API.

Socket Mode needs no public URL: ``apps.connections.open`` (a Web API call,
so the base URL option points it at a local fake in tests) returns the
WebSocket address. Every envelope is acknowledged right after the hub claims
its message (Slack re-sends an envelope not acknowledged within 3 s, and the
claim drops the copy). The token is the app-level token and the bot token,
separated by a space. In a channel the bot reads only messages that mention
it; Slack sends a mention twice (``message`` and ``app_mention``, same ``ts``),
which the claim also folds into one.

A file goes by Slack's current upload flow, the three steps slack_sdk's
``files_upload_v2`` takes, taken one at a time so the upload address Slack
returns is checked before the bytes go to it (an https address on Slack's
file host, or the configured base URL's host; at most 2,048 characters):
``files.getUploadURLExternal`` (name, length) → the bytes POSTed to that
address (no token: the address itself is the credential) →
``files.completeUploadExternal`` (the file id, ``channel_id``, the caption as
``initial_comment``), which is what shares it in the chat. Replies are not
threaded, so no ``thread_ts`` is sent. Until that last call nothing is in the
chat, so any failure before it is a refusal (``ChannelError``); a last call
that breaks off without Slack's ``ok: false`` may have shared it.
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
MAX_UPLOAD_URL = 2048
UPLOAD_TIMEOUT_S = 120.0


def error_code(exc: Exception) -> str:
    """Slack's error code from a SlackApiError (``invalid_auth``…), never its text; "" when there is none."""
    response = getattr(exc, "response", None)
    data = getattr(response, "data", None)
    code = data.get("error") if isinstance(data, dict) else None
    if isinstance(code, str) and 0 < len(code) <= 64 and code.replace("_", "").isalnum():
        return code
    return ""


class SlackAdapter:
    kind = "slack"
    service = "Slack"
    max_file_bytes = 1024 * 1024 * 1024  # slack_sdk's MAX_V2_FILE_SIZE, Slack's limit for one file

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
        """Upload ``data`` as ``name`` and share it in ``chat`` with ``caption``; the file's id."""
        from slack_sdk.errors import SlackApiError

        web = await self._connect()
        try:
            got = await web.files_getUploadURLExternal(filename=name, length=len(data))
        except SlackApiError as exc:
            raise ChannelError(f"Slack refused the upload{': ' + error_code(exc) if error_code(exc) else ''}") \
                from None
        except Exception as exc:  # noqa: BLE001 - nothing was sent yet: a refusal, said without the library's text
            raise ChannelError(f"Slack could not be asked for an upload address ({type(exc).__name__})") from None
        file_id, url = got.get("file_id"), got.get("upload_url")
        if not isinstance(file_id, str) or not 0 < len(file_id) <= 64:
            raise ChannelError("Slack's answer held no file id; nothing was sent")
        self._check_upload_url(url)
        await self._upload(str(url), data)
        try:
            done = await web.files_completeUploadExternal(files=[{"id": file_id, "title": name}], channel_id=chat,
                                                          initial_comment=caption or None)
        except SlackApiError as exc:
            if isinstance(getattr(exc.response, "data", None), dict):  # Slack said ok: false: not shared
                raise ChannelError(f"Slack did not share the file: {error_code(exc) or 'no reason given'}") \
                    from None
            raise  # an answer that is not Slack's: it may have been shared
        files = done.get("files")
        first = files[0] if isinstance(files, list) and files and isinstance(files[0], dict) else {}
        return str(first.get("id") or file_id)

    def _check_upload_url(self, url: object) -> None:
        """ChannelError unless ``url`` is an upload address the bytes may go to (Slack's file host over https,
        or the configured base URL's host and scheme)."""
        if not isinstance(url, str) or not url:
            raise ChannelError("Slack's answer held no upload address; nothing was sent")
        if len(url) > MAX_UPLOAD_URL:
            raise ChannelError(f"Slack's upload address is {len(url):,} characters long; nothing was sent")
        parts, base = urlsplit(url), urlsplit(self._config.base_url)
        if (parts.scheme, parts.netloc) != ("https", FILES_HOST) and not (
                base.netloc and (parts.scheme, parts.netloc) == (base.scheme, base.netloc)):
            raise ChannelError("Slack's upload address is not on Slack's file host; nothing was sent")

    async def _upload(self, url: str, data: bytes) -> None:
        """The bytes, as files_upload_v2 sends them (the body of a POST, no token), never following a redirect."""
        import aiohttp

        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=UPLOAD_TIMEOUT_S)) as http:
                async with http.post(url, data=data, allow_redirects=False) as r:
                    status = r.status
        except Exception as exc:  # noqa: BLE001 - not shared yet whatever happened: a refusal
            raise ChannelError(f"the upload to Slack broke off ({type(exc).__name__}); nothing was shared") \
                from None
        if status != 200:
            raise ChannelError(f"Slack's file host refused the upload ({status}); nothing was shared")

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
