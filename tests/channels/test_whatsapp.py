"""WhatsApp's Cloud API webhook on loopback and the Graph API fake: only signed deliveries get in."""

from __future__ import annotations

import hashlib
import hmac
import json

import aiohttp

from kernel.channels.model import ChannelConfig
from kernel.providers.scripted import reply
from ledger import ChannelMessage, PairingRequest

from .conftest import pictures, WHATSAPP_TOKEN, until

SECRET = WHATSAPP_TOKEN.split()[1]


def started(env) -> str:
    view = env.run(env.kernel.channels.add(ChannelConfig(
        name="wa", kind="whatsapp", base_url=env.fake.url + "/graph", listen="127.0.0.1:0",
        options={"phone_id": "1555"})))
    assert view.running, view.problem
    return env.kernel.channels.adapters["wa"].address


def delivery(sender: str, mid: str, text: str, image: bool = False) -> bytes:
    message: dict = {"from": sender, "id": mid, "timestamp": "1700000000", "type": "text", "text": {"body": text}}
    if image:
        message.update(type="image", image={"id": "media-1", "mime_type": "image/jpeg"})
    return json.dumps({"object": "whatsapp_business_account", "entry": [{"id": "1", "changes": [
        {"field": "messages", "value": {"messaging_product": "whatsapp", "messages": [message]}}]}]}).encode()


async def post(url: str, body: bytes, signature: str | None) -> int:
    headers = {"Content-Type": "application/json"}
    if signature is not None:
        headers["X-Hub-Signature-256"] = signature
    async with aiohttp.ClientSession() as http:
        async with http.post(url, data=body, headers=headers) as r:
            return r.status


def sign(body: bytes, secret: str = SECRET) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def test_unsigned_or_missigned_deliveries_are_refused_before_anything(make_env):
    env = make_env()
    url = started(env)
    body = delivery("4915", "wamid.A", "hello")
    assert env.run(post(url, body, None)) == 401
    assert env.run(post(url, body, sign(body, "wrong-secret"))) == 401
    assert env.run(post(url, body, sign(body + b" "))) == 401  # signed for another body
    assert env.kernel.channels.figures.claimed == 0 and env.fake.graph_sent == []

    async def handshake(token: str) -> tuple[int, str]:
        async with aiohttp.ClientSession() as http:
            async with http.get(url, params={"hub.mode": "subscribe", "hub.verify_token": token,
                                             "hub.challenge": "c123"}) as r:
                return r.status, await r.text()

    assert env.run(handshake("verify-token-TEST")) == (200, "c123")
    assert env.run(handshake("guess"))[0] == 403


def test_a_signed_stranger_gets_a_code_then_an_answer_whole_with_no_download_before(make_env):
    env = make_env()
    url = started(env)
    fake = env.fake
    first = delivery("4915", "wamid.A", "hello", image=True)
    assert env.run(post(url, first, sign(first))) == 200
    assert env.run(post(url, first, sign(first))) == 200  # Meta retries: acknowledged, dropped
    env.run(until(lambda: len(fake.graph_sent) == 1))
    env.run(env.kernel.channels.drain())
    assert "Pairing code" in fake.graph_sent[0].text and fake.graph_sent[0].chat == "4915"
    assert fake.hits["graph.GET bytes"] == 0 and env.kernel.channels.figures.redelivered == 1
    env.provider.script(reply("Got your photo."))
    env.kernel.channels.approve(env.entries(PairingRequest.KIND)[0].code)
    env.run(until(lambda: len(fake.graph_sent) == 2))
    assert fake.graph_sent[1].text == "Got your photo."
    assert fake.hits["graph.GET bytes"] == 1  # downloaded once the sender was paired
    [picture] = pictures(env)  # and shown to the model as a picture: untrusted, from the channel
    assert (picture.origin, picture.untrusted, picture.width) == ("channel", True, 90)
    [entry] = env.entries(ChannelMessage.KIND)
    assert entry.media == 1 and entry.text == "hello"
