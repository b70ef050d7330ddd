"""WebChat over loopback with the real aiohttp client: only its own page, with a session token, gets in.

A local program or a page from another local origin can reach the port; the upgrade is refused (403)
before any message is read unless Origin is the page's own origin and the subprotocols carry a token
this server issued to a same-origin caller. Nothing refused reaches the ledger.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import aiohttp
import pytest

from kernel.channels.approver import NOBODY
from kernel.channels.model import ChannelConfig, ChannelError
from kernel.providers.scripted import reply
from ledger import ChannelMessage, Denied, PairingRequest

from tests.fakes.channels_server import PHOTO

from .conftest import Confirming, pictures, until

PICTURE = "data:image/png;base64," + base64.b64encode(PHOTO).decode()


def webchat(env):
    view = env.run(env.kernel.channels.add(ChannelConfig(name="web", kind="webchat", listen="127.0.0.1:0")))
    assert view.running and view.address.startswith("http://127.0.0.1:"), view.problem
    return view.address.rstrip("/")


async def session_token(base: str, origin: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http:
        async with http.post(base + "/session", headers={"Origin": origin}) as r:
            return r.status, (await r.json())["token"] if r.status == 200 else ""


async def try_socket(base: str, origin: str | None, protocols: tuple[str, ...]) -> int:
    headers = {"Origin": origin} if origin else {}
    async with aiohttp.ClientSession() as http:
        try:
            async with http.ws_connect(base.replace("http", "ws") + "/ws", headers=headers, protocols=protocols):
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


def test_only_the_pages_own_origin_with_an_issued_token_opens_the_socket(make_env):
    env = make_env()
    base = webchat(env)
    evil = "http://127.0.0.1:1"  # another local origin
    assert env.run(session_token(base, evil))[0] == 403
    status, token = env.run(session_token(base, base))
    assert status == 200 and len(token) >= 32
    for origin, protocols in [(evil, ("agentdesk", f"token.{token}")), (None, ("agentdesk", f"token.{token}")),
                              (base, ("agentdesk",)), (base, ("agentdesk", "token.forged")),
                              ("http://localhost:" + base.rsplit(":", 1)[1], ("agentdesk", f"token.{token}"))]:
        assert env.run(try_socket(base, origin, protocols)) == 403, origin
    assert env.run(try_socket(base, base, ("agentdesk", f"token.{token}"))) == 101
    assert env.kernel.channels.adapters["web"].refused == 6
    assert env.entries(ChannelMessage.KIND) == [] and env.entries(PairingRequest.KIND) == []


def test_a_web_visitor_is_paired_like_anyone_and_then_answered(make_env):
    env = make_env()
    base = webchat(env)
    _, token = env.run(session_token(base, base))

    async def chat() -> list[dict]:
        got: list[dict] = []
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(base.replace("http", "ws") + "/ws", headers={"Origin": base},
                                       protocols=("agentdesk", f"token.{token}")) as ws:
                first = {"type": "message", "id": "m1", "text": "hello", "image": PICTURE}
                await ws.send_str(json.dumps(first))
                await ws.send_str(json.dumps(first))  # resent
                await ws.send_str("not json")
                while len([m for m in got if m["type"] == "message"]) < 1:
                    got.append(json.loads((await ws.receive()).data))
                code = env.entries(PairingRequest.KIND)[0].code
                assert env.kernel.channels.adapters["web"].decoded == 0  # a stranger's picture: never decoded
                env.provider.script(reply("Hello, visitor."))
                env.kernel.channels.approve(code)
                while len([m for m in got if m["type"] == "message"]) < 2:
                    got.append(json.loads((await ws.receive()).data))
        return got

    got = env.run(chat())
    texts = [m["text"] for m in got if m["type"] == "message"]
    assert "Pairing code" in texts[0] and texts[1] == "Hello, visitor."
    assert [m["id"] for m in got if m["type"] == "ack"][:2] == ["m1", "m1"]
    env.run(until(lambda: not env.kernel.channels._tasks))
    [entry] = env.entries(ChannelMessage.KIND)
    assert entry.text == "hello" and env.kernel.channels.figures.redelivered == 1
    [picture] = pictures(env)  # paired: the picture came with the message, untrusted, from the channel
    assert (picture.origin, picture.untrusted, picture.size) == ("channel", True, len(PHOTO))
    assert env.kernel.channels.adapters["web"].decoded == 1


def test_webchat_refuses_to_listen_beyond_loopback(make_env):
    env = make_env()
    with pytest.raises(ChannelError, match="loopback"):
        env.run(env.kernel.channels.add(ChannelConfig(name="web", kind="webchat", listen="0.0.0.0:8080")))


def test_a_file_reaches_the_visitors_page_when_confirmed_and_is_refused_with_nobody_attached(make_env):
    env = make_env(approver=Confirming())
    env.kernel.set_attached(True)
    base = webchat(env)
    _, token = env.run(session_token(base, base))
    (Path(env.kernel.settings.workspace) / "notes.md").write_bytes(b"# notes\n")
    send = ("channel_send_file", {"path": "notes.md"})

    async def chat() -> list[dict]:
        got: list[dict] = []

        async def until_got(kind: str, n: int) -> None:
            while len([m for m in got if m["type"] == kind]) < n:
                got.append(json.loads((await ws.receive()).data))

        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(base.replace("http", "ws") + "/ws", headers={"Origin": base},
                                       protocols=("agentdesk", f"token.{token}")) as ws:
                await ws.send_str(json.dumps({"type": "message", "id": "m1", "text": "the notes, please"}))
                await until_got("message", 1)
                env.provider.script(reply(tools=(send,)), reply("There they are."))
                env.kernel.channels.approve(env.entries(PairingRequest.KIND)[0].code)
                await until_got("message", 2)
                env.kernel.set_attached(False)  # the desktop went: nobody can confirm the next send
                env.provider.script(reply(tools=(send,)), reply("I could not send it."))
                await ws.send_str(json.dumps({"type": "message", "id": "m2", "text": "again"}))
                await until_got("message", 3)
        return got

    got = env.run(chat())
    [file] = [m for m in got if m["type"] == "file"]
    assert (file["name"], base64.b64decode(file["data"])) == ("notes.md", b"# notes\n")
    assert [m["text"] for m in got if m["type"] == "message"][1:] == ["There they are.", "I could not send it."]
    [denied] = env.entries(Denied.KIND)
    assert denied.actor == "kernel" and NOBODY.split(";")[0] in denied.reason
    env.provider.assert_done()
