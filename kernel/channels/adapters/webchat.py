"""WebChat: a page the kernel serves on loopback, and a WebSocket that only that page can open.

Bound to 127.0.0.1 (``ChannelConfig.check`` refuses anything else). Every
other local program and every page in the browser can reach the port, so the
WebSocket upgrade is refused (403, before any message is read) unless both
hold: ``Origin`` is exactly this server's own origin (a page served from
another local port has a different origin, and browsers set ``Origin``
themselves), and the subprotocol list carries a session token this server
issued. Tokens are issued to same-origin ``POST /session`` calls only and
travel in the URL fragment, never a query string. A session is one visitor:
its sender id is derived from the token and it meets the pairing gate like
anyone else. Messages are acknowledged (``ack``) once claimed. A message may
carry one picture as a data URL (PNG, JPEG, WebP or GIF, at most 8 MB of
base64); it is held as text, at most ``HELD_IMAGES`` at a time, and decoded
only when the gate admitted the message (``download``).
"""

from __future__ import annotations

import hashlib
import base64
import binascii
import itertools
import json
import re
import secrets
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from ..model import ChannelConfig, ChannelError, Inbound
from .webchat_page import PAGE

if TYPE_CHECKING:
    from aiohttp import web

    from .base import Deliver

MAX_MESSAGE = 16_000
MAX_SESSIONS = 100
MAX_IMAGE_B64 = 8 * 1024 * 1024       # a picture's data URL (about 6 MB of image)
HELD_IMAGES = 4                       # pictures waiting for the gate's word, oldest dropped first
_DATA_URL = re.compile(r"^data:image/(png|jpeg|webp|gif);base64,([A-Za-z0-9+/=]+)$")


class WebChatAdapter:
    kind = "webchat"
    service = "WebChat"
    max_file_bytes = 10 * 1000 * 1000  # sent inline (base64) on the page's WebSocket: kept small

    def __init__(self, config: ChannelConfig) -> None:
        self._config = config
        self.account = f"webchat:{config.name}"
        self.own_ids: frozenset[str] = frozenset()
        self._runner: web.AppRunner | None = None
        self._origin = ""
        self.address = ""
        self._tokens: dict[str, str] = {}        # token → session (sender) id
        self._sockets: dict[str, set[web.WebSocketResponse]] = {}
        self._ids = itertools.count(1)
        self._deliver: Deliver | None = None
        self.refused = 0
        self._images: OrderedDict[str, str] = OrderedDict()  # media id → base64, decoded only after the gate
        self.decoded = 0  # pictures decoded ("downloaded"): only ever for a message the gate admitted

    async def check(self) -> str:
        return f"serving {self.address}" if self.address else "not serving"

    async def start(self, deliver: Deliver) -> None:
        from aiohttp import web

        self._deliver = deliver
        host, _, port = (self._config.listen or "127.0.0.1:0").rpartition(":")
        if host not in ("127.0.0.1", "localhost", "[::1]"):
            raise ChannelError("WebChat listens on loopback only")
        app = web.Application(client_max_size=64 * 1024)
        app.router.add_get("/", self._page)
        app.router.add_post("/session", self._session)
        app.router.add_get("/ws", self._ws)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1" if host == "localhost" else host.strip("[]"), int(port or 0))
        await site.start()
        bound = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._origin = f"http://127.0.0.1:{bound}"
        self.address = self._origin + "/"

    async def stop(self) -> None:
        for sockets in self._sockets.values():
            for ws in list(sockets):
                await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # ---- HTTP ------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.StreamResponse:
        from aiohttp import web

        return web.Response(text=PAGE, content_type="text/html",
                            headers={"X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer",
                                     "Cache-Control": "no-store"})

    def _same_origin(self, request: web.Request) -> bool:
        return request.headers.get("Origin", "") == self._origin and request.host == self._origin[len("http://"):]

    async def _session(self, request: web.Request) -> web.StreamResponse:
        from aiohttp import web

        if not self._same_origin(request):
            self.refused += 1
            raise web.HTTPForbidden(text="not from this page")
        if len(self._tokens) >= MAX_SESSIONS:
            raise web.HTTPServiceUnavailable(text="too many sessions")
        token = secrets.token_urlsafe(24)
        self._tokens[token] = "web-" + hashlib.sha256(token.encode()).hexdigest()[:16]
        return web.Response(body=json.dumps({"token": token}).encode(), content_type="application/json",
                            headers={"Cache-Control": "no-store"})

    async def _ws(self, request: web.Request) -> web.StreamResponse:
        from aiohttp import WSMsgType, web

        offered = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",")]
        token = next((p[len("token."):] for p in offered if p.startswith("token.")), "")
        session = self._tokens.get(token) if token else None
        if not self._same_origin(request) or session is None:
            self.refused += 1
            raise web.HTTPForbidden(text="refused")
        ws = web.WebSocketResponse(protocols=("agentdesk",), max_msg_size=MAX_MESSAGE * 4 + MAX_IMAGE_B64,
                                   heartbeat=30)
        await ws.prepare(request)
        self._sockets.setdefault(session, set()).add(ws)
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                inbound = self._parse(session, msg.data)
                if inbound is not None and self._deliver is not None:
                    self._deliver(inbound)
                    await ws.send_str(json.dumps({"type": "ack", "id": inbound.message_id}))
        finally:
            self._sockets.get(session, set()).discard(ws)
        return ws

    def _parse(self, session: str, data: str) -> Inbound | None:
        try:
            m = json.loads(data)
        except ValueError:
            return None
        if not isinstance(m, dict) or m.get("type") != "message":
            return None
        text, mid, image = m.get("text"), m.get("id"), m.get("image")
        if not isinstance(text, str) or not isinstance(mid, str) or not mid or len(mid) > 100:
            return None
        media: tuple[str, ...] = ()
        found = _DATA_URL.match(image) if isinstance(image, str) and len(image) <= MAX_IMAGE_B64 else None
        if found is not None:
            media_id = f"{session}/{mid}"
            self._images[media_id] = found.group(2)
            while len(self._images) > HELD_IMAGES:
                self._images.popitem(last=False)
            media = (media_id,)
        return Inbound(channel=self._config.name, chat=session, chat_kind="dm", sender=session, message_id=mid,
                       text=text[:MAX_MESSAGE], sender_name=f"web visitor {session[4:10]}", media=media)

    # ---- what the hub asks ----------------------------------------------------------

    async def _push(self, chat: str, payload: dict[str, Any]) -> None:
        data = json.dumps(payload)
        for ws in list(self._sockets.get(chat, ())):
            try:
                await ws.send_str(data)
            except (ConnectionError, RuntimeError):
                self._sockets.get(chat, set()).discard(ws)

    async def send(self, chat: str, text: str) -> str:
        mid = str(next(self._ids))
        await self._push(chat, {"type": "message", "id": mid, "text": text})
        return mid

    async def edit(self, chat: str, message_id: str, text: str) -> None:
        await self._push(chat, {"type": "edit", "id": message_id, "text": text})

    async def send_file(self, chat: str, name: str, data: bytes, caption: str) -> str:
        """The file to the visitor's page, inline (base64): the page offers it as a download."""
        mid = str(next(self._ids))
        await self._push(chat, {"type": "file", "id": mid, "name": name, "caption": caption, "size": len(data),
                                "data": base64.b64encode(data).decode()})
        return mid

    async def typing(self, chat: str) -> None:
        await self._push(chat, {"type": "typing"})

    async def download(self, media_id: str) -> bytes:
        """A picture sent with a message, decoded now (the gate admitted it); each is taken once."""
        held = self._images.pop(media_id, None)
        if held is None:
            raise ChannelError("that picture is no longer held (too many came in at once)")
        self.decoded += 1
        try:
            return base64.b64decode(held, validate=True)
        except (binascii.Error, ValueError):
            raise ChannelError("a picture that is not base64") from None


__all__ = ["WebChatAdapter"]
