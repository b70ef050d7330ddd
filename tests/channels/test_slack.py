"""Slack through the real slack_sdk Socket Mode client against the loopback fake: envelopes acknowledged
after the claim, re-sent envelopes and the double mention folded into one, the gate before every effect."""

from __future__ import annotations

from kernel.channels.model import ChannelConfig
from kernel.providers.scripted import reply
from ledger import ChannelMessage, PairingRequest

from .conftest import SLACK_TOKEN, pictures, until
from .streaming import streamed


def started(env):
    view = env.run(env.kernel.channels.add(ChannelConfig(name="sl", kind="slack", base_url=env.fake.url)))
    assert view.running, view.problem
    env.run(until(lambda: len(env.fake.slack.sockets) == 1))
    return view


def dm(text: str, ts: str, user: str = "UALICE", **extra) -> dict:
    return {"type": "message", "channel": "DALICE", "channel_type": "im", "user": user, "text": text, "ts": ts,
            **extra}


def test_a_stranger_gets_one_code_resent_envelopes_are_acknowledged_and_dropped(make_env):
    env = make_env()
    started(env)
    fake = env.fake
    env.run(fake.slack_event(dm("hi", "1.1")))
    env.run(fake.slack_event(dm("hi", "1.1")))  # Slack re-sends an envelope it thinks was not acknowledged
    env.run(fake.slack_event(dm("a file", "1.2", files=[{"url_private_download": f"{fake.url}/slack/files/a.png"}])))
    env.run(until(lambda: len(fake.slack.acks) == 3 and env.kernel.channels.figures.claimed == 2))
    env.run(env.kernel.channels.drain())
    assert len(fake.slack.posted) == 1 and "Pairing code" in fake.slack.posted[0].text
    assert env.kernel.channels.figures.redelivered == 1
    assert fake.hits["slack.file"] == 0 and env.provider.requests == []
    # the tokens are held for the ledger's redactor, each of the two
    held = {value for _label, value in env.kernel.secrets.items()}
    assert set(SLACK_TOKEN.split()) <= held


def test_approved_the_sender_is_answered_and_a_mention_sent_twice_is_one_message(make_env):
    env = make_env()
    started(env)
    fake = env.fake
    env.run(fake.slack_event(dm("what's new?", "2.1", files=[{"url_private_download": f"{fake.url}/slack/files/b.png"}])))
    env.run(until(lambda: len(fake.slack.posted) == 1))
    assert fake.hits["slack.file"] == 0
    env.provider.script(reply("Nothing much."))
    env.kernel.channels.approve(env.entries(PairingRequest.KIND)[0].code)
    env.run(until(lambda: len(fake.slack.posted) == 2))
    assert fake.slack.posted[1].text == "Nothing much." and fake.slack.posted[1].chat == "DALICE"
    [picture] = pictures(env)  # the file, fetched with the bot token once paired, shown as an untrusted picture
    assert (picture.origin, picture.untrusted, fake.hits["slack.file"]) == ("channel", True, 1)
    # in a channel: Slack sends the mention as a message and as app_mention, with one ts
    mention = {"channel": "CTEAM", "channel_type": "channel", "user": "UALICE", "text": "<@UBOT> hello", "ts": "3.1"}
    env.run(fake.slack_event({"type": "message", **mention}))
    env.run(fake.slack_event({"type": "app_mention", **mention}))
    env.run(fake.slack_event({"type": "message", **mention, "text": "not for the bot", "ts": "3.2"}))
    env.run(until(lambda: len(fake.slack.acks) == 4 and len(fake.slack.posted) == 3))
    env.run(env.kernel.channels.drain())
    assert fake.slack.posted[2].chat == "CTEAM" and "Pairing code" in fake.slack.posted[2].text  # a group: its own pairing
    assert [e.message_id for e in env.entries(ChannelMessage.KIND)] == ["2.1"]
    env.provider.assert_done()


def test_slack_streams_by_chat_update_at_most_every_1_2_s_and_splits_at_4000(make_env):
    env = make_env()
    fake = env.fake
    view = env.run(env.kernel.channels.add(ChannelConfig(name="sl", kind="slack", base_url=fake.url)))
    assert view.running, view.problem
    env.run(until(lambda: len(fake.slack.sockets) == 1))

    async def deliver(text: str, ts: str) -> None:
        await fake.slack_event({"type": "message", "channel": "DALICE", "channel_type": "im", "user": "UALICE",
                                "text": text, "ts": ts})

    streamed(env, "slack", deliver, lambda: fake.slack.posted, lambda: fake.slack.updated)
    assert fake.hits["slack.chat.update"] == len(fake.slack.updated)
