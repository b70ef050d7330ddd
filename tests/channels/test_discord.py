"""Discord through the real hikari client against the fake's REST API and zlib-stream gateway."""

from __future__ import annotations

from kernel.channels.model import ChannelConfig
from kernel.providers.scripted import reply
from ledger import ChannelMessage, Denied, PairingRequest

from .conftest import pictures, until
from .streaming import streamed


def test_a_stranger_gets_one_code_then_an_answer_and_a_guild_chat_needs_a_mention(make_env):
    env = make_env()
    view = env.run(env.kernel.channels.add(ChannelConfig(name="dc", kind="discord", base_url=env.fake.url)))
    assert view.running, view.problem
    fake = env.fake
    assert fake.discord.identified == 1
    env.run(fake.discord_message(channel="123", author="42", content="hi", message_id="701", photo=True))
    env.run(fake.discord_message(channel="123", author="42", content="hi", message_id="701", photo=True))  # replayed
    env.run(fake.discord_message(channel="123", author="42", content="again", message_id="702"))
    env.run(until(lambda: env.kernel.channels.figures.claimed == 2 and env.kernel.channels.figures.redelivered == 1))
    env.run(env.kernel.channels.drain())
    assert len(fake.discord.sent) == 1 and "Pairing code" in fake.discord.sent[0].text
    assert fake.hits["discord.POST typing"] == 0 and fake.hits["discord.file"] == 0 and env.provider.requests == []
    env.provider.script(reply(tools=(("channel_send_file", {"path": "notes.md"}),)), reply("Hello from Discord."))
    env.kernel.channels.approve(env.entries(PairingRequest.KIND)[0].code)
    env.run(until(lambda: len(fake.discord.sent) == 2))
    assert fake.discord.sent[1].text == "Hello from Discord." and fake.hits["discord.POST typing"] == 1
    [picture] = pictures(env)  # the attachment, fetched once paired, shown as an untrusted picture
    assert (picture.origin, picture.untrusted, fake.hits["discord.file"]) == ("channel", True, 1)
    # a file that is not in the workspace: refused in a sentence before anyone is asked (no Denied entry)
    assert "notes.md does not exist in your workspace" in str(env.provider.requests[1].messages[-1].parts[-1])
    assert env.entries(Denied.KIND) == []
    # in a guild: chatter is not for the bot; a mention is, and it is a group: its own pairing
    env.run(fake.discord_message(channel="555", author="42", content="chatter", message_id="801", guild="9"))
    env.run(fake.discord_message(channel="555", author="42", content="<@999> hi", message_id="802", guild="9"))
    env.run(until(lambda: len(fake.discord.sent) == 3))
    env.run(env.kernel.channels.drain())
    assert fake.discord.sent[2].chat == "555" and "Pairing code" in fake.discord.sent[2].text
    assert [e.message_id for e in env.entries(ChannelMessage.KIND)] == ["701"]
    env.provider.assert_done()


def test_discord_streams_by_message_edits_at_most_every_second_and_splits_at_2000(make_env):
    env = make_env()
    fake = env.fake
    view = env.run(env.kernel.channels.add(ChannelConfig(name="dc", kind="discord", base_url=fake.url)))
    assert view.running, view.problem

    async def deliver(text: str, mid: str) -> None:
        await fake.discord_message(channel="123", author="42", content=text, message_id=mid)

    streamed(env, "discord", deliver, lambda: fake.discord.sent, lambda: fake.discord.edits)
    assert fake.hits["discord.PATCH messages"] == len(fake.discord.edits)
