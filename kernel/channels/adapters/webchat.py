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
anyone else. Messages are acknowledged (``ack``) once claimed.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import secrets
from typing import TYPE_CHECKING, Any

from ..model import ChannelConfig, ChannelError, Inbound
from .webchat_page import PAGE

if TYPE_CHECKING:
    from aiohttp import web

    from .base import Deliver

MAX_MESSAGE = 16_000
MAX_SESSIONS = 100


class WebChatAdapter:
    kind = "webchat"

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
        ws = web.WebSocketResponse(protocols=("agentdesk",), max_msg_size=MAX_MESSAGE * 4, heartbeat=30)
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
        text, mid = m.get("text"), m.get("id")
        if not isinstance(text, str) or not isinstance(mid, str) or not mid or len(mid) > 100:
            return None
        return Inbound(channel=self._config.name, chat=session, chat_kind="dm", sender=session, message_id=mid,
                       text=text[:MAX_MESSAGE], sender_name=f"web visitor {session[4:10]}")

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

    async def typing(self, chat: str) -> None:
        await self._push(chat, {"type": "typing"})

    async def download(self, media_id: str) -> bytes:
        raise ChannelError("WebChat takes text only")


__all__ = ["WebChatAdapter"]
