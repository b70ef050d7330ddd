"""Whatever a chat service (or someone posing as one) sends, the adapters' parsers return messages or
nothing: never an exception, and never a message without a sender, chat and id of plain strings."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from kernel.channels.adapters.slack import SlackAdapter
from kernel.channels.adapters.webchat import WebChatAdapter
from kernel.channels.adapters.whatsapp import WhatsAppAdapter, signature_ok
from kernel.channels.model import ChannelConfig, Inbound

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["event", "type", "user", "channel", "ts", "text", "files", "entry", "changes", "value",
                         "messages", "from", "id", "image", "channel_type", "subtype", "bot_id", "body"]),
        inner, max_size=6),
    max_leaves=30)

SLACK = SlackAdapter(ChannelConfig(name="sl", kind="slack"), "xapp-1-a xoxb-b")
WHATSAPP = WhatsAppAdapter(ChannelConfig(name="wa", kind="whatsapp", listen="127.0.0.1:0",
                                         options={"phone_id": "1"}), "a b c")
WEB = WebChatAdapter(ChannelConfig(name="web", kind="webchat"))


def well_formed(found: Inbound) -> None:
    for value in (found.channel, found.chat, found.sender, found.message_id, found.text):
        assert isinstance(value, str)
    assert found.chat_kind in ("dm", "group")
    assert all(isinstance(m, str) and m for m in found.media)


@settings(max_examples=300, deadline=None)
@given(payload=json_values)
def test_hostile_slack_whatsapp_and_webchat_payloads_parse_to_messages_or_nothing(payload):
    found = SLACK.parse(payload)
    if found is not None:
        well_formed(found)
    for message in WHATSAPP.parse(payload):
        well_formed(message)
        assert message.sender and message.message_id
    try:
        text = json.dumps(payload)
    except ValueError:
        return
    found = WEB._parse("web-1", text)
    if found is not None:
        well_formed(found)
        assert found.chat == found.sender == "web-1"  # a visitor speaks only as itself


def test_a_webchat_frame_cannot_choose_its_sender_or_an_oversized_id():
    forged = json.dumps({"type": "message", "id": "1", "text": "hi", "sender": "owner", "chat": "other"})
    found = WEB._parse("web-1", forged)
    assert found is not None and (found.sender, found.chat) == ("web-1", "web-1")
    assert WEB._parse("web-1", json.dumps({"type": "message", "id": "x" * 101, "text": "hi"})) is None
    assert WEB._parse("web-1", "[1, 2") is None


def test_the_whatsapp_signature_is_exact():
    body = b'{"a": 1}'
    good = "sha256=" + __import__("hmac").new(b"s", body, "sha256").hexdigest()
    assert signature_ok("s", body, good)
    for bad in ("", good.upper(), good[:-1], "sha1=" + good[7:], good + " "):
        assert not signature_ok("s", body, bad)
