"""WhatsApp through the Cloud API: a webhook in, Graph API calls out. Opt-in, and it needs a tunnel.

Meta delivers messages only to a public HTTPS URL, so the kernel serves the
webhook on the address the user configures (``listen``) and the user points a
tunnel at it. Every POST must carry ``X-Hub-Signature-256``: the HMAC-SHA256
of the exact body under the app secret, compared in constant time; anything
else is refused (401) before the body is parsed. The subscription handshake
(GET with ``hub.verify_token``) answers only the verify token. The token is
three secrets separated by spaces: the access token, the app secret and the
verify token; ``options["phone_id"]`` names the sending number. Messages are
acknowledged (200) once claimed; WhatsApp cannot edit a sent message, so
replies arrive whole.

A file is uploaded first (``POST /{phone_id}/media``, multipart: ``file``,
its ``type`` and ``messaging_product``), and the media id sent in a message:
``type: image`` for a JPEG or PNG of at most 5 MB (WhatsApp's image limit;
a larger picture goes as a document), else ``document`` with its file name;
the caption with either. Anything that goes wrong before the message is
posted is a refusal; the message itself refused (an HTTP error) sent nothing,
an answer to it that is not JSON may follow a sent one. Errors are said by
status code, never by the Graph API's text.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import mimetypes
from typing import TYPE_CHECKING, Any

from ..model import ChannelConfig, ChannelError, Inbound

if TYPE_CHECKING:
    from aiohttp import web

    from .base import Deliver

GRAPH = "https://graph.facebook.com/v21.0"
MAX_BODY = 1024 * 1024
MAX_DOWNLOAD = 20 * 1024 * 1024
IMAGE_TYPES = frozenset({"image/jpeg", "image/png"})  # what WhatsApp shows as a picture
MAX_IMAGE = 5 * 1000 * 1000
MAX_MEDIA_ID = 128


def signature_ok(secret: str, body: bytes, header: str) -> bool:
    expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header)


class WhatsAppAdapter:
    kind = "whatsapp"
    service = "WhatsApp"
    max_file_bytes = 100 * 1000 * 1000  # the Cloud API's limit for a document (a picture over 5 MB goes as one)

    def __init__(self, config: ChannelConfig, token: str) -> None:
        parts = token.split()
        if len(parts) != 3:
            raise ChannelError("a WhatsApp channel's token is the access token, the app secret and the verify "
                               "token, separated by spaces")
        if not config.options.get("phone_id") or not config.listen:
            raise ChannelError("a WhatsApp channel needs options phone_id and a listen address for its webhook")
        self._config = config
        self._access, self._secret, self._verify = parts
        self._base = (config.base_url.rstrip("/") or GRAPH)
        self.account = config.options["phone_id"]
        self.own_ids: frozenset[str] = frozenset({self.account})
        self._runner: web.AppRunner | None = None
        self._http: Any = None
        self._deliver: Deliver | None = None
        self.address = ""
        self.refused = 0

    async def check(self) -> str:
        data = await self._graph("GET", f"/{self.account}")
        return f"phone number {data.get('display_phone_number', self.account)}"

    async def start(self, deliver: Deliver) -> None:
        import aiohttp
        from aiohttp import web

        self._deliver = deliver
        self._http = aiohttp.ClientSession(headers={"Authorization": f"Bearer {self._access}"})
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_get("/webhook", self._verify_subscription)
        app.router.add_post("/webhook", self._webhook)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0)
        await self._runner.setup()
        host, _, port = self._config.listen.rpartition(":")
        site = web.TCPSite(self._runner, host.strip("[]") or "127.0.0.1", int(port or 0))
        await site.start()
        bound = site._server.sockets[0].getsockname()  # type: ignore[union-attr]
        self.address = f"http://{bound[0]}:{bound[1]}/webhook"

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._http is not None:
            await self._http.close()

    async def _verify_subscription(self, request: web.Request) -> web.StreamResponse:
        from aiohttp import web

        q = request.query
        if q.get("hub.mode") == "subscribe" and hmac.compare_digest(q.get("hub.verify_token", ""), self._verify):
            return web.Response(text=q.get("hub.challenge", ""))
        self.refused += 1
        raise web.HTTPForbidden()

    async def _webhook(self, request: web.Request) -> web.StreamResponse:
        from aiohttp import web

        body = await request.read()
        if not signature_ok(self._secret, body, request.headers.get("X-Hub-Signature-256", "")):
            self.refused += 1
            raise web.HTTPUnauthorized(text="bad signature")
        try:
            data = json.loads(body)
        except ValueError:
            raise web.HTTPBadRequest() from None
        for inbound in self.parse(data):
            if self._deliver is not None:
                self._deliver(inbound)
        return web.Response(text="ok")

    def parse(self, data: Any) -> list[Inbound]:
        out: list[Inbound] = []
        entries = data.get("entry") if isinstance(data, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            for change in entry.get("changes", []) if isinstance(entry, dict) else []:
                value = change.get("value") if isinstance(change, dict) else None
                messages = value.get("messages") if isinstance(value, dict) else None
                for m in messages if isinstance(messages, list) else []:
                    if not isinstance(m, dict) or not m.get("from") or not m.get("id"):
                        continue
                    text = m.get("text", {}).get("body", "") if isinstance(m.get("text"), dict) else ""
                    media = tuple(str(m[k]["id"]) for k in ("image", "document", "audio")
                                  if isinstance(m.get(k), dict) and m[k].get("id"))
                    out.append(Inbound(channel=self._config.name, chat=str(m["from"]), chat_kind="dm",
                                       sender=str(m["from"]), message_id=str(m["id"]), text=str(text)[:16000],
                                       media=media))
        return out

    async def _graph(self, method: str, path: str, payload: dict[str, Any] | None = None,
                     data: Any = None) -> dict[str, Any]:
        """The Graph API's JSON object answer; ChannelError on an HTTP error (said by its status only),
        ValueError on an answer that is not a JSON object."""
        async with self._http.request(method, self._base + path, json=payload, data=data) as r:
            if r.status >= 400:
                raise ChannelError(f"the Graph API said {r.status}")
            found = json.loads(await r.content.read(MAX_BODY + 1))
            if not isinstance(found, dict):
                raise ValueError("the Graph API's answer is not a JSON object")
            return found

    async def send(self, chat: str, text: str) -> str:
        data = await self._graph("POST", f"/{self.account}/messages", {
            "messaging_product": "whatsapp", "to": chat, "type": "text", "text": {"body": text}})
        found = data.get("messages")
        return str(found[0].get("id", "")) if isinstance(found, list) and found else ""

    async def edit(self, chat: str, message_id: str, text: str) -> None:
        raise ChannelError("WhatsApp cannot edit a sent message")  # never asked: EDIT_EVERY_S["whatsapp"] is None

    async def send_file(self, chat: str, name: str, data: bytes, caption: str) -> str:
        """Upload ``data`` as ``name``, then send it to ``chat`` as a picture or a document; the message's id."""
        import aiohttp

        media_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        form = aiohttp.FormData()
        form.add_field("messaging_product", "whatsapp")
        form.add_field("type", media_type)
        form.add_field("file", data, filename=name, content_type=media_type)
        try:
            uploaded = await self._graph("POST", f"/{self.account}/media", data=form)
        except ChannelError as exc:
            raise ChannelError(f"WhatsApp refused the upload ({exc.reason})") from None
        except Exception as exc:  # noqa: BLE001 - nothing is in the chat before the message: a refusal
            raise ChannelError(f"the upload to WhatsApp gave no usable answer ({type(exc).__name__})") from None
        media_id = uploaded.get("id")
        if not isinstance(media_id, str) or not 0 < len(media_id) <= MAX_MEDIA_ID:
            raise ChannelError("WhatsApp's answer to the upload held no media id; nothing was sent")
        kind = "image" if media_type in IMAGE_TYPES and len(data) <= MAX_IMAGE else "document"
        media: dict[str, Any] = {"id": media_id, **({"caption": caption} if caption else {}),
                                 **({"filename": name} if kind == "document" else {})}
        sent = await self._graph("POST", f"/{self.account}/messages", {
            "messaging_product": "whatsapp", "recipient_type": "individual", "to": chat, "type": kind, kind: media})
        found = sent.get("messages")
        return str(found[0].get("id", "")) if isinstance(found, list) and found and isinstance(found[0], dict) else ""

    async def typing(self, chat: str) -> None:
        return None

    async def download(self, media_id: str) -> bytes:
        info = await self._graph("GET", f"/{media_id}")
        url = str(info.get("url") or "")
        if not url.startswith(("https://", self._base)):
            raise ChannelError("the media URL is not one to fetch")
        async with self._http.get(url, allow_redirects=False) as r:
            r.raise_for_status()
            return bytes((await r.content.read(MAX_DOWNLOAD + 1))[:MAX_DOWNLOAD])
