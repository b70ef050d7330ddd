"""channel_send_file on Slack, Discord and WhatsApp, through their real clients against the channels fake.

Each service's test pairs a sender, then the model sends: a file over the service's limit (refused in a
sentence naming the service and its limit, before anyone is asked and before any upload), a send the fake
answers badly (a clear error result quoting nothing of the server's, which echoes the bot's token), and
the real file, which must arrive byte for byte with its name and caption in the sender's chat. The
adapter-level cases then take every other bad answer (malformed JSON, a missing, huge or foreign upload
address, an upload refused) straight to the adapter: a ChannelError (nothing in the chat) without the
token, or, where the answer came after the share, an error that is not a refusal (recorded as unknown).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import TypeVar

import aiohttp
import pytest

from kernel.channels.adapters.discord import DiscordAdapter
from kernel.channels.adapters.slack import SlackAdapter
from kernel.channels.adapters.whatsapp import WhatsAppAdapter
from kernel.channels.model import ChannelConfig, ChannelError
from kernel.providers.scripted import reply
from ledger import Intent, Outcome, PairingRequest
from tests.fakes.channels_server import PHOTO, SentFile

from .conftest import DISCORD_TOKEN, SLACK_TOKEN, WHATSAPP_TOKEN, Confirming, until

A = TypeVar("A")

SEND = "channel_send_file"
REPORT = bytes(range(256)) * 3 + b"\x00end"  # a binary file: every byte value, a NUL at the end
BIG = b"x" * 1001
LIMIT = 1000


def workspace(env) -> Path:
    ws = Path(env.kernel.settings.workspace)
    (ws / "report.pdf").write_bytes(REPORT)
    (ws / "big.bin").write_bytes(BIG)
    return ws


def results(env) -> list[str]:
    """The last tool result the model was shown before each of its requests after the first."""
    return [str(getattr(last, "content", last)) for r in env.provider.requests[1:]
            for last in [[p for m in r.messages for p in m.parts][-1]]]


def clean(text: str, token: str) -> None:
    for secret in token.split():
        assert secret not in text


def outcomes(env) -> list[str]:
    intents = [i.seq for i in env.entries(Intent.KIND) if i.tool == SEND]
    return [o.status for o in env.entries(Outcome.KIND) if o.cause in intents]


def steps(*sends: dict) -> list:
    return [*(reply(tools=((SEND, s),)) for s in sends), reply("Sent.")]


def confirmed(make_env):
    approver = Confirming()
    env = make_env(approver=approver)
    env.kernel.set_attached(True)  # a desktop is there to confirm
    workspace(env)
    return env, approver


# ---- Slack -------------------------------------------------------------------------------------------


def running(env, config: ChannelConfig, kind: type[A]) -> A:
    """The channel ``config`` added to the kernel and running: its adapter."""
    view = env.run(env.kernel.channels.add(config))
    assert view.running, view.problem
    adapter = env.kernel.channels.adapters[config.name]
    assert isinstance(adapter, kind)
    return adapter


def slack(env) -> SlackAdapter:
    adapter = running(env, ChannelConfig(name="sl", kind="slack", base_url=env.fake.url), SlackAdapter)
    env.run(until(lambda: len(env.fake.slack.sockets) == 1))
    return adapter


def test_slack_uploads_the_file_by_the_external_flow_and_shares_it_with_its_caption(make_env, monkeypatch):
    monkeypatch.setattr(SlackAdapter, "max_file_bytes", LIMIT)
    env, approver = confirmed(make_env)
    fake = env.fake
    slack(env)
    env.run(fake.slack_event({"type": "message", "channel": "DALICE", "channel_type": "im", "user": "UALICE",
                              "text": "the report please", "ts": "1.1"}))
    env.run(until(lambda: len(fake.slack.posted) == 1))
    fake.break_next("slack.files.getUploadURLExternal", "error")  # the next send: refused, the token echoed
    env.provider.script(*steps({"path": "big.bin"}, {"path": "report.pdf", "caption": "try"},
                               {"path": "report.pdf", "caption": "Q3 figures"}))
    env.kernel.channels.approve(env.entries(PairingRequest.KIND)[0].code)
    env.run(until(lambda: len(fake.slack.posted) == 2))
    assert fake.slack.posted[1].text == "Sent."
    assert fake.slack.files == [SentFile("DALICE", "report.pdf", REPORT, "Q3 figures")]
    too_big, refused, sent = results(env)
    assert "big.bin has 1,001 bytes; Slack takes at most 1,000 bytes in one file" in too_big
    assert "report.pdf was not sent: Slack refused the upload: invalid_auth" in refused
    assert sent.startswith("sent report.pdf (772 bytes) to the direct messages DALICE")
    assert len(approver.asked) == 2  # the file over the limit was refused before anyone was asked
    assert fake.hits["slack.files.getUploadURLExternal"] == 2 and fake.hits["slack.upload"] == 1
    assert fake.hits["slack.files.completeUploadExternal"] == 1
    assert outcomes(env) == ["failed", "done"]
    for text in (refused, *(o.detail for o in env.entries(Outcome.KIND))):
        clean(text, SLACK_TOKEN)
    env.provider.assert_done()


SLACK_BAD = [  # (the endpoint answering badly, how, what the refusal says)
    ("slack.files.getUploadURLExternal", "malformed", "Slack refused the upload"),
    ("slack.files.getUploadURLExternal", "no_url", "held no upload address"),
    ("slack.files.getUploadURLExternal", "huge_url", "upload address is 100,"),
    ("slack.files.getUploadURLExternal", "foreign_url", "not on Slack's file host"),
    ("slack.upload", "error", "file host refused the upload (500)"),
    ("slack.files.completeUploadExternal", "error", "did not share the file: invalid_auth"),
]


def test_slack_refuses_every_bad_answer_before_anything_is_shared_and_sends_no_bytes_to_an_unchecked_url(make_env):
    env = make_env()
    adapter = slack(env)
    for endpoint, how, says in SLACK_BAD:
        uploads = env.fake.hits["slack.upload"]
        env.fake.break_next(endpoint, how)
        with pytest.raises(ChannelError) as refused:
            env.run(adapter.send_file("DALICE", "a.txt", b"abc", "c"))
        assert says in refused.value.reason, how
        clean(refused.value.reason, SLACK_TOKEN)
        assert env.fake.slack.files == []
        if "url" in how:  # the bytes never left for an address that was not checked
            assert env.fake.hits["slack.upload"] == uploads
    env.fake.break_next("slack.files.completeUploadExternal", "malformed")
    with pytest.raises(Exception) as broke:
        env.run(adapter.send_file("DALICE", "a.txt", b"abc", "c"))
    assert not isinstance(broke.value, ChannelError)  # it may have been shared: the hub records it as unknown


# ---- Discord -----------------------------------------------------------------------------------------


def discord(env) -> DiscordAdapter:
    return running(env, ChannelConfig(name="dc", kind="discord", base_url=env.fake.url), DiscordAdapter)


def test_discord_sends_the_file_as_a_message_attachment_and_a_garbled_answer_is_unknown(make_env, monkeypatch):
    monkeypatch.setattr(DiscordAdapter, "max_file_bytes", LIMIT)
    env, approver = confirmed(make_env)
    fake = env.fake
    discord(env)
    env.run(fake.discord_message(channel="123", author="42", content="the report please", message_id="701"))
    env.run(until(lambda: len(fake.discord.sent) == 1))
    fake.break_next("discord.POST messages", "error", "malformed")  # a refusal, then a garbled answer
    env.provider.script(*steps({"path": "big.bin"}, {"path": "report.pdf", "caption": "try"},
                               {"path": "report.pdf", "caption": "again"},
                               {"path": "report.pdf", "caption": "Q3 figures"}))
    env.kernel.channels.approve(env.entries(PairingRequest.KIND)[0].code)
    env.run(until(lambda: len(fake.discord.sent) == 2))
    assert fake.discord.sent[1].text == "Sent."
    too_big, refused, unknown, sent = results(env)
    assert "big.bin has 1,001 bytes; Discord takes at most 1,000 bytes in one file" in too_big
    assert "report.pdf was not sent: Discord refused the file (400)" in refused
    assert "it is not known whether report.pdf reached the chat" in unknown and "not sent again" in unknown
    assert sent.startswith("sent report.pdf (772 bytes) to the direct messages 123")
    assert fake.discord.files[-1] == SentFile("123", "report.pdf", REPORT, "Q3 figures")
    assert len(approver.asked) == 3 and outcomes(env) == ["failed", "unknown", "done"]
    for text in (refused, unknown, *(o.detail for o in env.entries(Outcome.KIND))):
        clean(text, DISCORD_TOKEN)
    env.provider.assert_done()
    # straight to the adapter: a refusal quotes nothing of the server's text (which echoed the token)
    adapter = env.kernel.channels.adapters["dc"]
    fake.break_next("discord.POST messages", "error")
    with pytest.raises(ChannelError) as refused_again:
        env.run(adapter.send_file("123", "a.txt", b"abc", ""))
    assert refused_again.value.reason == "Discord refused the file (400)"
    assert env.run(adapter.send_file("123", "a.txt", b"abc", ""))  # no caption: an attachment with no text
    assert fake.discord.files[-1] == SentFile("123", "a.txt", b"abc", "")


# ---- WhatsApp ----------------------------------------------------------------------------------------


def whatsapp(env) -> WhatsAppAdapter:
    return running(env, ChannelConfig(name="wa", kind="whatsapp", base_url=env.fake.url + "/graph",
                                      listen="127.0.0.1:0", options={"phone_id": "1555"}), WhatsAppAdapter)


async def signed_post(url: str, sender: str, mid: str, text: str) -> int:
    body = json.dumps({"object": "whatsapp_business_account", "entry": [{"id": "1", "changes": [
        {"field": "messages", "value": {"messaging_product": "whatsapp", "messages": [
            {"from": sender, "id": mid, "timestamp": "1700000000", "type": "text", "text": {"body": text}}]}}]}]})
    secret = WHATSAPP_TOKEN.split()[1]
    signature = "sha256=" + hmac.new(secret.encode(), body.encode(), hashlib.sha256).hexdigest()
    async with aiohttp.ClientSession() as http:
        async with http.post(url, data=body, headers={"Content-Type": "application/json",
                                                      "X-Hub-Signature-256": signature}) as r:
            return r.status


def test_whatsapp_uploads_media_then_sends_a_document_or_a_picture_with_the_caption(make_env, monkeypatch):
    monkeypatch.setattr(WhatsAppAdapter, "max_file_bytes", LIMIT)
    env, approver = confirmed(make_env)
    (Path(env.kernel.settings.workspace) / "photo.png").write_bytes(PHOTO[:LIMIT])
    fake = env.fake
    adapter = whatsapp(env)
    assert env.run(signed_post(adapter.address, "4915", "wamid.A", "the report please")) == 200
    env.run(until(lambda: len(fake.graph_sent) == 1))
    fake.break_next("graph.POST media", "error")
    env.provider.script(*steps({"path": "big.bin"}, {"path": "report.pdf", "caption": "try"},
                               {"path": "report.pdf", "caption": "Q3 figures"},
                               {"path": "photo.png", "caption": "the chart"}))
    env.kernel.channels.approve(env.entries(PairingRequest.KIND)[0].code)
    env.run(until(lambda: len(fake.graph_sent) == 2))
    assert fake.graph_sent[1].text == "Sent."
    assert fake.graph_files == [SentFile("4915", "report.pdf", REPORT, "Q3 figures", "document"),
                                SentFile("4915", "photo.png", PHOTO[:LIMIT], "the chart", "image")]
    assert [t for _n, _d, t in fake.graph_media.values()] == ["application/pdf", "image/png"]
    too_big, refused, *sent = results(env)
    assert "big.bin has 1,001 bytes; WhatsApp takes at most 1,000 bytes in one file" in too_big
    assert "report.pdf was not sent: WhatsApp refused the upload (the Graph API said 400)" in refused
    assert sent[0].startswith("sent report.pdf (772 bytes) to the direct messages 4915")
    assert len(approver.asked) == 3 and outcomes(env) == ["failed", "done", "done"]
    for text in (refused, *(o.detail for o in env.entries(Outcome.KIND))):
        clean(text, WHATSAPP_TOKEN)
    env.provider.assert_done()


def test_whatsapp_refuses_every_bad_answer_before_the_message_is_sent_and_a_garbled_send_is_unknown(make_env,
                                                                                                     monkeypatch):
    env = make_env()
    adapter = whatsapp(env)
    for endpoint, how, says in [("graph.POST media", "malformed", "the upload to WhatsApp gave no usable answer"),
                                ("graph.POST media", "no_id", "held no media id"),
                                ("graph.POST messages", "error", "the Graph API said 400")]:
        env.fake.break_next(endpoint, how)
        with pytest.raises(ChannelError) as refused:
            env.run(adapter.send_file("4915", "a.txt", b"abc", "c"))
        assert says in refused.value.reason, how
        clean(refused.value.reason, WHATSAPP_TOKEN)
    assert env.fake.graph_files == []
    env.fake.break_next("graph.POST messages", "malformed")
    with pytest.raises(Exception) as broke:
        env.run(adapter.send_file("4915", "a.txt", b"abc", ""))
    assert not isinstance(broke.value, ChannelError)  # it may have been sent: the hub records it as unknown
    # a picture over WhatsApp's image limit goes as a document
    monkeypatch.setattr("kernel.channels.adapters.whatsapp.MAX_IMAGE", len(PHOTO) - 1)
    assert env.run(adapter.send_file("4915", "photo.png", PHOTO, "")).startswith("wamid.")
    assert env.fake.graph_files == [SentFile("4915", "photo.png", PHOTO, "", "document")]
