"""One loopback fake for the chat services the channel adapters talk to, counting every endpoint hit.

aiohttp on 127.0.0.1:0. It serves Telegram's Bot API (``/bot<token>/<method>``
and ``/file/bot<token>/<path>``) as aiogram calls it: getMe, getUpdates (a
long poll that honours ``timeout`` and wakes when an update is queued, and
keeps every update until an offset confirms it), sendMessage,
editMessageText, sendChatAction, getFile and the file download. ``hits``
counts each endpoint, so a test can assert a side effect did NOT happen
(no ``sendChatAction``, no ``getFile``).

Outbound files land in ``files`` (chat, name, bytes, caption) per service:
Slack's upload flow (files.getUploadURLExternal → the bytes POSTed to
``/slack/upload/<id>`` → files.completeUploadExternal), Discord's multipart
message (payload_json + files[0]) and WhatsApp's media upload then message.
``break_next(endpoint, how)`` makes the next hit of an endpoint answer badly
once (an error, malformed JSON, a missing, huge or foreign upload URL).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

def _photo() -> bytes:
    """A real 90×60 PNG (a channel's photo must be a picture Pillow reads to become an image part)."""
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (90, 60), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


PHOTO = _photo()
BOT_ID = 777000
BOT_USERNAME = "desk_bot"


@dataclass
class Sent:
    chat: str
    text: str
    message_id: int


@dataclass(frozen=True)
class SentFile:
    chat: str
    name: str
    data: bytes
    caption: str
    kind: str = ""  # WhatsApp's message type (image, document)


@dataclass
class TelegramState:
    updates: list[dict[str, Any]] = field(default_factory=list)
    next_update: int = 1
    next_message: int = 10_000
    sent: list[Sent] = field(default_factory=list)
    edits: list[Sent] = field(default_factory=list)
    documents: list[tuple[str, str, bytes, str]] = field(default_factory=list)  # (chat, file name, bytes, caption)
    wake: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class SlackState:
    sockets: list[web.WebSocketResponse] = field(default_factory=list)
    acks: list[str] = field(default_factory=list)
    posted: list[Sent] = field(default_factory=list)
    updated: list[Sent] = field(default_factory=list)
    envelopes: int = 0
    next_ts: int = 1
    pending: dict[str, str] = field(default_factory=dict)  # file id → its name, until its bytes come
    uploads: dict[str, bytes] = field(default_factory=dict)  # file id → the bytes POSTed to its upload URL
    files: list[SentFile] = field(default_factory=list)  # shared by files.completeUploadExternal


@dataclass
class DiscordState:
    sockets: list[tuple[web.WebSocketResponse, Any]] = field(default_factory=list)  # (socket, its compressor)
    seq: int = 1
    sent: list[Sent] = field(default_factory=list)
    edits: list[Sent] = field(default_factory=list)
    identified: int = 0
    files: list[SentFile] = field(default_factory=list)


def _json(payload: Any) -> web.Response:
    return web.Response(body=json.dumps(payload).encode(), content_type="application/json")


def _json_status(status: int, payload: Any) -> web.Response:
    return web.Response(status=status, body=json.dumps(payload).encode(), content_type="application/json")


class ChannelsFake:
    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.tg = TelegramState()
        self.slack = SlackState()
        self.graph_sent: list[Sent] = []
        self.graph_media: dict[str, tuple[str, bytes, str]] = {}  # media id → (file name, bytes, type)
        self.graph_files: list[SentFile] = []
        self.discord = DiscordState()
        self.broken: dict[str, list[str]] = {}
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self) -> "ChannelsFake":
        app = web.Application()
        app.router.add_post("/bot{token}/{method}", self._telegram)
        app.router.add_get("/file/bot{token}/{path:.*}", self._telegram_file)
        app.router.add_post("/api/{method}", self._slack)
        app.router.add_get("/slack/ws", self._slack_ws)
        app.router.add_get("/slack/files/{name}", self._slack_file)
        app.router.add_post("/slack/upload/{file_id}", self._slack_upload)
        app.router.add_route("*", "/graph/{path:.*}", self._graph)
        app.router.add_get("/api/v10/gateway/bot", self._discord_gateway_info)
        app.router.add_get("/discord/gw", self._discord_gw)
        app.router.add_get("/discord/files/{name}", self._discord_file)
        app.router.add_route("*", "/api/v10/channels/{channel}/{rest:.*}", self._discord_rest)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1)  # long polls are cut, not waited for
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def stop(self) -> None:
        self.tg.wake.set()
        if self._runner is not None:
            await self._runner.cleanup()

    def reset(self) -> None:
        self.tg.wake.set()  # a long poll of the previous test's adapter ends now
        self.hits.clear()
        self.tg = TelegramState()
        self.slack = SlackState()
        self.graph_sent = []
        self.graph_media = {}
        self.graph_files = []
        self.discord = DiscordState()
        self.broken = {}

    def break_next(self, endpoint: str, *hows: str) -> None:
        """The next hits of ``endpoint`` (as ``hits`` names it) answer ``hows``, one each, in order: error,
        malformed, no_id (Graph), no_url, huge_url or foreign_url (Slack's upload address)."""
        self.broken[endpoint] = [*self.broken.get(endpoint, []), *hows]

    def _how(self, endpoint: str) -> str | None:
        hows = self.broken.get(endpoint)
        if not hows:
            return None
        how = hows.pop(0)
        if not hows:
            del self.broken[endpoint]
        return how

    def _broken(self, endpoint: str, request: web.Request) -> web.Response | None:
        """The next hit's bad answer, if one is set; an error quotes the credential it was sent (a client that
        shows a server's text would leak it)."""
        how = self._how(endpoint)
        if how == "error":
            echo = request.headers.get("Authorization", "")
            return _json_status(400, {"message": f"Invalid Form Body ({echo})", "code": 50035,
                                      "error": {"message": f"(#100) Invalid parameter ({echo})", "code": 100}})
        if how == "malformed":
            return web.Response(status=200, body=b'{"ok": true, "id": ', content_type="application/json")
        if how == "no_id":
            return _json({"ok": True})
        return None

    # ---- Telegram ----------------------------------------------------------------------

    def tg_message(self, *, chat: int, sender: int, text: str = "", message_id: int, group: bool = False,
                   is_bot: bool = False, photo: bool = False, name: str = "") -> dict[str, Any]:
        """Queue an update holding this message (the same message id again is a redelivery)."""
        message: dict[str, Any] = {
            "message_id": message_id, "date": 1_700_000_000,
            "chat": {"id": chat, "type": "group" if group else "private", **({"title": "g"} if group else {})},
            "from": {"id": sender, "is_bot": is_bot, "first_name": name or f"user{sender}",
                     "username": name or f"user{sender}"},
        }
        if photo:
            message["photo"] = [{"file_id": f"photo-{message_id}", "file_unique_id": f"u{message_id}",
                                 "width": 90, "height": 60, "file_size": len(PHOTO)}]
            message["caption"] = text
        else:
            message["text"] = text
        update = {"update_id": self.tg.next_update, "message": message}
        self.tg.next_update += 1
        self.tg.updates.append(update)
        self.tg.wake.set()
        return update

    async def _telegram(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        self.hits[f"telegram.{method}"] += 1
        form = dict(await request.post()) if request.can_read_body else {}
        if method == "getMe":
            return _json({"ok": True, "result": {"id": BOT_ID, "is_bot": True, "first_name": "Desk",
                                                 "username": BOT_USERNAME}})
        if method == "getUpdates":
            return _json({"ok": True, "result": await self._poll(form)})
        if method == "sendMessage":
            self.tg.next_message += 1
            sent = Sent(str(form["chat_id"]), str(form["text"]), self.tg.next_message)
            self.tg.sent.append(sent)
            return _json({"ok": True, "result": {"message_id": sent.message_id, "date": 1_700_000_000,
                                                 "chat": {"id": int(sent.chat), "type": "private"},
                                                 "text": sent.text}})
        if method == "editMessageText":
            edit = Sent(str(form["chat_id"]), str(form["text"]), int(str(form["message_id"])))
            self.tg.edits.append(edit)
            return _json({"ok": True, "result": {"message_id": edit.message_id, "date": 1_700_000_000,
                                                 "chat": {"id": int(edit.chat), "type": "private"},
                                                 "text": edit.text}})
        if method == "sendDocument":
            ref = str(form["document"])  # aiogram names the file part: "attach://<part>"
            document = form[ref.removeprefix("attach://")] if ref.startswith("attach://") else form["document"]
            self.tg.next_message += 1
            self.tg.documents.append((str(form["chat_id"]), str(document.filename), document.file.read(),
                                      str(form.get("caption", ""))))
            return _json({"ok": True, "result": {"message_id": self.tg.next_message, "date": 1_700_000_000,
                                                 "chat": {"id": int(str(form["chat_id"])), "type": "private"},
                                                 "document": {"file_id": "doc", "file_unique_id": "d"}}})
        if method == "sendChatAction":
            return _json({"ok": True, "result": True})
        if method == "getFile":
            file_id = str(form["file_id"])
            return _json({"ok": True, "result": {"file_id": file_id, "file_unique_id": "u", "file_size": len(PHOTO),
                                                 "file_path": f"photos/{file_id}.jpg"}})
        return _json({"ok": False, "error_code": 404, "description": f"Not Found: {method}"})

    async def _poll(self, form: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(str(form.get("offset", 0) or 0))
        timeout = float(str(form.get("timeout", 0) or 0))
        self.tg.updates = [u for u in self.tg.updates if u["update_id"] >= offset]  # confirmed: gone
        if not self.tg.updates and timeout > 0:
            self.tg.wake.clear()
            try:
                await asyncio.wait_for(self.tg.wake.wait(), timeout)
            except asyncio.TimeoutError:
                pass
        return list(self.tg.updates[:100])

    async def _telegram_file(self, request: web.Request) -> web.Response:
        self.hits["telegram.file"] += 1
        return web.Response(body=PHOTO, content_type="image/png")

    # ---- Slack: Web API and Socket Mode -------------------------------------------------

    async def slack_event(self, event: dict[str, Any]) -> str:
        """Send an events_api envelope holding ``event`` on every open socket (again: a re-send); its id."""
        self.slack.envelopes += 1
        envelope_id = f"env-{self.slack.envelopes}"
        data = json.dumps({"envelope_id": envelope_id, "type": "events_api", "accepts_response_payload": False,
                           "payload": {"type": "event_callback", "event": event}})
        for ws in list(self.slack.sockets):
            await ws.send_str(data)
        return envelope_id

    async def _slack(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        self.hits[f"slack.{method}"] += 1
        if request.content_type == "application/json":
            form = await request.json()
        else:
            form = {**request.query, **dict(await request.post())}  # slack_sdk sends some methods' params in the query
        broken = self._how(f"slack.{method}")
        if broken == "error":
            return _json({"ok": False, "error": "invalid_auth",
                          "detail": request.headers.get("Authorization", "")})
        if broken == "malformed":
            return web.Response(status=200, body=b'{"ok": tr', content_type="application/json")
        if method == "files.getUploadURLExternal":
            file_id = f"F{len(self.slack.pending) + len(self.slack.files) + 1:04d}"
            self.slack.pending[file_id] = str(form["filename"])
            url = {"no_url": None, "huge_url": self.url + "/slack/upload/" + "x" * 100_000,
                   "foreign_url": "http://127.0.0.1:9/slack/upload/" + file_id}.get(
                       broken or "", self.url + "/slack/upload/" + file_id)
            return _json({"ok": True, "file_id": file_id, **({"upload_url": url} if url else {})})
        if method == "files.completeUploadExternal":
            [found] = json.loads(str(form["files"]))
            file_id = str(found["id"])
            self.slack.files.append(SentFile(str(form["channel_id"]), self.slack.pending.pop(file_id),
                                             self.slack.uploads.pop(file_id), str(form.get("initial_comment", ""))))
            return _json({"ok": True, "files": [{"id": file_id, "title": found.get("title", "")}]})
        if method == "auth.test":
            return _json({"ok": True, "user": "desk", "user_id": "UBOT", "bot_id": "BBOT", "team": "Team"})
        if method == "apps.connections.open":
            if not request.headers.get("Authorization", "").startswith("Bearer xapp-"):
                return _json({"ok": False, "error": "not_allowed_token_type"})
            return _json({"ok": True, "url": self.url.replace("http", "ws") + "/slack/ws"})
        if method in ("chat.postMessage", "chat.update"):
            ts = str(form.get("ts") or f"{1_700_000_000 + self.slack.next_ts}.000100")
            self.slack.next_ts += 1
            sent = Sent(str(form["channel"]), str(form["text"]), 0)
            (self.slack.posted if method == "chat.postMessage" else self.slack.updated).append(sent)
            return _json({"ok": True, "channel": sent.chat, "ts": ts})
        return _json({"ok": False, "error": "unknown_method"})

    async def _slack_ws(self, request: web.Request) -> web.WebSocketResponse:
        self.hits["slack.ws"] += 1
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self.slack.sockets.append(ws)
        await ws.send_str(json.dumps({"type": "hello", "num_connections": 1}))
        try:
            async for msg in ws:
                if msg.type == web.WSMsgType.TEXT:
                    data = json.loads(msg.data)
                    if "envelope_id" in data:
                        self.slack.acks.append(data["envelope_id"])
        finally:
            if ws in self.slack.sockets:
                self.slack.sockets.remove(ws)
        return ws

    async def _slack_upload(self, request: web.Request) -> web.Response:
        self.hits["slack.upload"] += 1
        if self._how("slack.upload"):
            return web.Response(status=500, text="upload failed")
        file_id = request.match_info["file_id"]
        if file_id not in self.slack.pending:
            return web.Response(status=404, text="no such upload")
        self.slack.uploads[file_id] = await request.read()
        return web.Response(text="OK - " + str(len(self.slack.uploads[file_id])), content_type="text/plain")

    async def _slack_file(self, request: web.Request) -> web.Response:
        self.hits["slack.file"] += 1
        return web.Response(body=PHOTO, content_type="image/png")

    # ---- WhatsApp: the Graph API (outbound; inbound is the kernel's webhook) ----------------

    async def _graph(self, request: web.Request) -> web.Response:
        path = request.match_info["path"]
        self.hits[f"graph.{request.method} {path.split('/')[-1] if '/' in path else 'node'}"] += 1
        if not request.headers.get("Authorization", "").startswith("Bearer "):
            return web.Response(status=401)
        broken = self._broken(f"graph.{request.method} {path.split('/')[-1]}", request)
        if broken is not None:
            return broken
        if request.method == "POST" and path.endswith("/media"):
            form = await request.post()
            upload = form["file"]
            assert form["messaging_product"] == "whatsapp" and not isinstance(upload, str)
            media_id = f"media-up-{len(self.graph_media) + 1}"
            self.graph_media[media_id] = (str(upload.filename), upload.file.read(), str(form["type"]))
            return _json({"id": media_id})
        if request.method == "POST" and path.endswith("/messages"):
            body = await request.json()
            if body["type"] in ("image", "document"):
                media = body[body["type"]]
                name, data, _type = self.graph_media[media["id"]]
                self.graph_files.append(SentFile(str(body["to"]), str(media.get("filename", name)), data,
                                                 str(media.get("caption", "")), body["type"]))
                return _json({"messaging_product": "whatsapp", "messages": [{"id": f"wamid.f{len(self.graph_files)}"}]})
            sent = Sent(str(body["to"]), str(body["text"]["body"]), len(self.graph_sent) + 1)
            self.graph_sent.append(sent)
            return _json({"messaging_product": "whatsapp", "messages": [{"id": f"wamid.{sent.message_id}"}]})
        if path == "media/bytes":
            return web.Response(body=PHOTO, content_type="image/png")
        return _json({"id": path, "url": self.url + "/graph/media/bytes", "display_phone_number": "+1 555"})

    # ---- Discord: REST and a zlib-stream gateway ----------------------------------------------

    async def _discord_gateway_info(self, request: web.Request) -> web.Response:
        self.hits["discord.gateway"] += 1
        return _json({"url": self.url.replace("http", "ws") + "/discord/gw", "shards": 1,
                      "session_start_limit": {"total": 1000, "remaining": 1000, "reset_after": 14400000,
                                              "max_concurrency": 1}})

    async def _discord_send(self, ws: web.WebSocketResponse, deflate: Any, payload: dict[str, Any]) -> None:
        import zlib

        await ws.send_bytes(deflate.compress(json.dumps(payload).encode()) + deflate.flush(zlib.Z_SYNC_FLUSH))

    async def discord_message(self, *, channel: str, author: str, content: str, message_id: str,
                              guild: str | None = None, bot: bool = False, photo: bool = False) -> None:
        """Dispatch MESSAGE_CREATE on every identified gateway socket (again: a re-send)."""
        d: dict[str, Any] = {
            "id": message_id, "channel_id": channel, "content": content, "timestamp": "2026-12-03T12:00:00+00:00",
            "edited_timestamp": None, "tts": False, "mention_everyone": False, "mentions": [], "mention_roles": [],
            "attachments": [{"id": f"9{message_id}", "filename": "photo.png", "size": len(PHOTO),
                             "url": f"{self.url}/discord/files/photo.png", "proxy_url": f"{self.url}/discord/files/p",
                             "content_type": "image/png", "width": 90, "height": 60}] if photo else [],
            "embeds": [], "pinned": False, "type": 0, "flags": 0,
            "author": {"id": author, "username": f"user{author}", "discriminator": "0", "global_name": None,
                       "avatar": None, "bot": bot}}
        if guild is not None:
            d["guild_id"] = guild
        for ws, deflate in list(self.discord.sockets):
            self.discord.seq += 1
            await self._discord_send(ws, deflate, {"op": 0, "s": self.discord.seq, "t": "MESSAGE_CREATE", "d": d})

    async def _discord_gw(self, request: web.Request) -> web.WebSocketResponse:
        import zlib

        self.hits["discord.ws"] += 1
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        deflate = zlib.compressobj()
        await self._discord_send(ws, deflate, {"op": 10, "d": {"heartbeat_interval": 45000}})
        try:
            async for msg in ws:
                if msg.type not in (web.WSMsgType.TEXT, web.WSMsgType.BINARY):
                    continue
                data = json.loads(msg.data)
                if data.get("op") == 1:
                    await self._discord_send(ws, deflate, {"op": 11})
                elif data.get("op") == 2:
                    self.discord.identified += 1
                    await self._discord_send(ws, deflate, {"op": 0, "s": 1, "t": "READY", "d": {
                        "v": 10, "user": {"id": "999", "username": "desk", "discriminator": "0", "global_name": None,
                                          "avatar": None, "bot": True, "mfa_enabled": False, "flags": 0},
                        "guilds": [], "session_id": "session-1", "shard": [0, 1],
                        "resume_gateway_url": self.url.replace("http", "ws") + "/discord/gw",
                        "application": {"id": "999", "flags": 0}}})
                    self.discord.sockets.append((ws, deflate))
        finally:
            self.discord.sockets = [(w, d) for w, d in self.discord.sockets if w is not ws]
        return ws

    async def _discord_file(self, request: web.Request) -> web.Response:
        self.hits["discord.file"] += 1
        return web.Response(body=PHOTO, content_type="image/png")

    async def _discord_rest(self, request: web.Request) -> web.Response:
        channel, rest = request.match_info["channel"], request.match_info["rest"]
        self.hits[f"discord.{request.method} {rest.split('/')[0]}"] += 1
        if rest == "typing":
            return web.Response(status=204)
        broken = self._broken(f"discord.{request.method} {rest.split('/')[0]}", request)
        if broken is not None:
            return broken
        files: dict[str, tuple[str, bytes]] = {}
        if request.content_type.startswith("multipart/"):  # a message with attachments: payload_json + files[n]
            body = {}
            async for part in await request.multipart():
                assert isinstance(part, aiohttp.BodyPartReader)
                if part.name == "payload_json":
                    body = json.loads(await part.read())
                elif part.name is not None and part.name.startswith("files["):
                    files[part.name] = (str(part.filename), bytes(await part.read()))
        else:
            body = await request.json() if request.can_read_body else {}
        mid = rest.split("/")[1] if "/" in rest else str(5000 + len(self.discord.sent) + len(self.discord.files))
        sent = Sent(channel, str(body.get("content", "")), int(mid))
        if files:
            for name, data in files.values():
                self.discord.files.append(SentFile(channel, name, data, sent.text))
        else:
            (self.discord.sent if request.method == "POST" else self.discord.edits).append(sent)
        return _json({"id": mid, "channel_id": channel, "content": sent.text, "timestamp": "2026-12-03T12:00:00+00:00",
                      "edited_timestamp": None, "tts": False, "mention_everyone": False, "mentions": [],
                      "mention_roles": [], "attachments": [], "embeds": [], "pinned": False, "type": 0, "flags": 0,
                      "author": {"id": "999", "username": "desk", "discriminator": "0", "avatar": None, "bot": True}})
