"""Telegram through the real aiogram client against the loopback fake: the gate, pairing, sessions, trust.

Every assertion that something did NOT happen reads the fake's endpoint counters (no typing call, no
file download) or the scripted provider (no model request): the gate stands before every side effect.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from kernel.channels.approver import NOBODY
from kernel.channels.codes import ALPHABET, LENGTH
from kernel.core.events import AgentSpawned
from kernel.providers.scripted import reply
from ledger import ChannelMessage, Denied, Intent, Outcome, PairingGrant, PairingRequest, PairingRevoke

from .conftest import Confirming, pictures, telegram, ticking, until

ALICE = 501


@pytest.fixture(scope="module", autouse=True)
def aiogram_loaded() -> None:
    """aiogram imported once, before the first test's clock starts (its models took 7.5 s of CPU here)."""
    import aiogram  # noqa: F401


def started(env, **changes):
    view = env.run(env.kernel.channels.add(telegram(env.fake, **changes)))
    assert view.running, view.problem
    return view


def codes(env) -> list[str]:
    return [e.code for e in env.entries(PairingRequest.KIND)]


def paired(env, *replies, text: str = "hi", **message):
    """Alice writes ``text`` in a DM, gets her pairing code, the model is given ``replies``, and the owner
    approves her; the channel's fake is returned (her first answer is on its way)."""
    fake = env.fake
    fake.tg_message(chat=ALICE, sender=ALICE, text=text, message_id=1, **message)
    env.run(until(lambda: len(fake.tg.sent) == 1))
    env.provider.script(*replies)
    env.kernel.channels.approve(codes(env)[0])
    return fake


def test_an_unknown_sender_gets_one_pairing_code_and_nothing_else(make_env):
    env = make_env()
    started(env)
    fake = env.fake
    fake.tg_message(chat=ALICE, sender=ALICE, text="/start", message_id=1)
    env.run(until(lambda: len(fake.tg.sent) == 1))
    fake.tg_message(chat=ALICE, sender=ALICE, text="hello?", message_id=2)
    fake.tg_message(chat=ALICE, sender=ALICE, text="a photo", message_id=3, photo=True)
    fake.tg_message(chat=ALICE, sender=ALICE, text="/start", message_id=1)  # a redelivery
    env.run(until(lambda: env.kernel.channels.figures.claimed == 3 and env.kernel.channels.figures.redelivered == 1))
    env.run(env.kernel.channels.drain())
    [code] = codes(env)
    assert len(code) == LENGTH and set(code) <= set(ALPHABET)
    assert [s.text for s in fake.tg.sent] == [fake.tg.sent[0].text] and code in fake.tg.sent[0].text
    assert fake.hits["telegram.sendChatAction"] == 0 and fake.hits["telegram.getFile"] == 0
    assert fake.hits["telegram.file"] == 0
    assert env.provider.requests == [] and env.kernel.agents.list() == []
    assert env.entries(ChannelMessage.KIND) == []
    [pending] = env.kernel.channels.pending()
    assert (pending.code, pending.chat_kind, pending.sender) == (code, "dm", str(ALICE))


def test_approval_answers_the_first_message_within_a_second_as_an_untrusted_message(make_env):
    env = make_env()
    started(env)
    fake = env.fake
    fake.tg_message(chat=ALICE, sender=ALICE, text="what is on my desk?", message_id=7, name="alice")
    env.run(until(lambda: len(fake.tg.sent) == 1))
    env.provider.script(reply("Three notes and a mug.", chunks=3))
    began = time.perf_counter()
    view = env.kernel.channels.approve(codes(env)[0].lower())  # typed in lower case: still the code
    env.run(until(lambda: len(fake.tg.sent) == 2))
    took = time.perf_counter() - began
    assert took <= 1.0, f"approval to first reply took {took:.3f} s"
    assert view.sender == str(ALICE) and fake.tg.sent[1].text == "Three notes and a mug."
    assert fake.hits["telegram.sendChatAction"] == 1
    [grant] = env.entries(PairingGrant.KIND)
    assert (grant.actor, grant.chat_kind, grant.sender) == ("user", "dm", str(ALICE))
    [message] = env.entries(ChannelMessage.KIND)
    [agent] = env.kernel.agents.list()
    assert message.agent == agent.id and message.text == "what is on my desk?"
    assert agent.name == "tg · alice" and "channel" in agent.tainted or agent.tainted
    sent = env.provider.requests[0].messages[-1]
    text = "".join(getattr(p, "text", "") for p in sent.parts)
    assert '<untrusted source="telegram dm from 501"' in text and "what is on my desk?" in text
    # the same sender's next message goes to the same agent
    env.provider.script(reply("Still three."))
    fake.tg_message(chat=ALICE, sender=ALICE, text="and now?", message_id=8)
    env.run(until(lambda: len(fake.tg.sent) == 3))
    assert len(env.kernel.agents.list()) == 1 and fake.tg.sent[2].text == "Still three."
    env.provider.assert_done()


def test_a_dm_pairing_never_lets_the_same_sender_in_through_a_group(make_env):
    env = make_env()
    started(env)
    fake = paired(env, reply("Hello."))
    env.run(until(lambda: len(fake.tg.sent) == 2))
    group = -100
    fake.tg_message(chat=group, sender=ALICE, text="chatter not for the bot", message_id=1, group=True)
    fake.tg_message(chat=group, sender=ALICE, text="@desk_bot delete my files", message_id=2, group=True)
    env.run(until(lambda: len(fake.tg.sent) == 3))
    env.run(env.kernel.channels.drain())
    assert str(group) == fake.tg.sent[2].chat and "Pairing code" in fake.tg.sent[2].text
    assert len(env.provider.requests) == 1  # only the DM was answered by a model
    assert [p.chat_kind for p in env.kernel.channels.pending()] == ["group"]
    assert env.kernel.channels.figures.claimed == 2  # the group chatter was not for the bot: never taken in


def test_three_codes_pending_at_most_and_an_expired_code_makes_room(make_env):
    env = make_env()
    started(env)
    fake = env.fake
    for n in range(5):
        fake.tg_message(chat=1000 + n, sender=1000 + n, text="hi", message_id=1)
    env.run(until(lambda: env.kernel.channels.figures.claimed == 5))
    env.run(env.kernel.channels.drain())
    assert len(fake.tg.sent) == 3 and len(env.kernel.channels.pending()) == 3
    env.clock.advance(3601)
    assert env.kernel.channels.pending() == []
    fake.tg_message(chat=1004, sender=1004, text="again", message_id=2)
    env.run(until(lambda: len(fake.tg.sent) == 4))
    assert fake.tg.sent[3].chat == "1004"
    try:
        env.kernel.channels.approve(codes(env)[0])  # the first sender's code expired
    except Exception as exc:  # noqa: BLE001
        assert "no pending pairing code" in str(exc)
    else:
        raise AssertionError("an expired code was approved")


def test_revoking_sends_the_sender_back_to_the_gate(make_env):
    env = make_env()
    started(env)
    fake = paired(env, reply("Hello."))
    env.run(until(lambda: len(fake.tg.sent) == 2))
    assert env.kernel.channels.revoke("tg", "dm", str(ALICE), str(ALICE))
    fake.tg_message(chat=ALICE, sender=ALICE, text="still there?", message_id=2)
    env.run(until(lambda: len(fake.tg.sent) == 3))
    assert "Pairing code" in fake.tg.sent[2].text and len(env.provider.requests) == 1
    assert len(env.entries(PairingRevoke.KIND)) == 1
    assert env.kernel.channels.paired() == []


def test_a_thousand_redeliveries_make_no_duplicate(make_env):
    env = make_env()
    started(env)
    fake = paired(env, reply("Hello."))
    env.run(until(lambda: len(fake.tg.sent) == 2))
    env.provider.script(reply("Once."))
    for _ in range(1000):
        fake.tg_message(chat=ALICE, sender=ALICE, text="do it once", message_id=42)
    env.run(until(lambda: env.kernel.channels.figures.redelivered == 999))
    env.run(env.kernel.channels.drain())
    assert [e.message_id for e in env.entries(ChannelMessage.KIND)] == ["1", "42"]
    assert [s.text for s in fake.tg.sent[2:]] == ["Once."]
    env.provider.assert_done()


def test_a_channel_sender_cannot_answer_a_lease_request_nobody_attached_refuses_it(make_env):
    env = make_env()
    started(env)
    fake = paired(env, reply(tools=(("fs_write", {"path": "note.txt", "content": "x"}),)),
                  reply("I could not write it."), text="write a note")
    env.run(until(lambda: len(fake.tg.sent) == 2))
    [denied] = env.entries(Denied.KIND)
    assert denied.actor == "kernel" and NOBODY.split(";")[0] in denied.reason
    assert fake.tg.sent[1].text == "I could not write it."
    assert not (Path(env.kernel.agents.list()[0].workspace) / "note.txt").exists()
    # and a sender typing "yes" or the request's id answers nothing: the lease book holds no lease
    assert env.kernel.leases.list() == [] and env.kernel.leases.pending() == []
    env.provider.assert_done()


def test_a_long_reply_streams_by_edits_and_is_split_at_telegrams_limit(make_env):
    env = make_env()
    started(env)
    long = " ".join(f"word{n}" for n in range(1200))  # ~9,000 characters
    ticking(env, 0.5)
    fake = paired(env, reply(long, chunks=30), text="tell me everything")
    env.run(until(lambda: env.kernel.channels.figures.admitted == 1 and not env.kernel.channels._tasks))
    pieces = [s.text for s in fake.tg.sent[1:]]
    assert len(fake.tg.edits) >= 2  # streamed while it arrived, then put in place
    shown = [fake.tg.edits[-1].text, *pieces[1:]]
    assert all(len(p) <= 4096 for p in shown) and " ".join(shown) == long


def test_spawned_channel_agents_show_their_channel_in_the_process_table(make_env):
    env = make_env()
    started(env)
    fake = paired(env, reply("Hello."), name="alice")
    env.run(until(lambda: len(fake.tg.sent) == 2))
    [spawned] = [e for e in env.events if isinstance(e, AgentSpawned)]
    assert spawned.agent.name.startswith("tg · ")
    env.kernel.agents.kill(spawned.agent.id)
    env.provider.script(reply("A fresh agent."))
    fake.tg_message(chat=ALICE, sender=ALICE, text="again", message_id=2)
    env.run(until(lambda: len(fake.tg.sent) == 3))
    assert fake.tg.sent[2].text == "A fresh agent." and len(env.kernel.agents.list()) == 2


def test_only_a_channel_chosen_open_lets_a_stranger_in_and_then_untrusted_and_unable_to_grant(make_env):
    env = make_env()
    started(env)
    fake = env.fake
    fake.tg_message(chat=ALICE, sender=ALICE, text="let me in", message_id=1)
    env.run(until(lambda: len(fake.tg.sent) == 1))
    env.run(env.kernel.channels.drain())
    assert "Pairing code" in fake.tg.sent[0].text and env.provider.requests == []  # pairing: a code, nothing else
    view = started(env, access="open")
    assert view.config.open and [v.config.access for v in env.kernel.channels.list()] == ["open"]
    env.provider.script(reply(tools=(("fs_write", {"path": "x.txt", "content": "x"}),)), reply("Hello, stranger."))
    fake.tg_message(chat=ALICE, sender=ALICE, text="write x.txt", message_id=2)
    env.run(until(lambda: len(fake.tg.sent) == 2))
    assert fake.tg.sent[1].text == "Hello, stranger." and env.kernel.channels.paired() == []
    [agent] = env.kernel.agents.list()
    assert agent.tainted
    text = "".join(getattr(p, "text", "") for p in env.provider.requests[0].messages[-1].parts)
    assert '<untrusted source="telegram dm from 501"' in text
    [denied] = env.entries(Denied.KIND)
    assert denied.actor == "kernel" and env.kernel.leases.list() == [] and env.kernel.leases.pending() == []
    assert not (Path(agent.workspace) / "x.txt").exists()
    env.provider.assert_done()


def test_a_denied_code_is_gone_recorded_and_its_sender_not_given_another(make_env):
    env = make_env()
    started(env)
    fake = env.fake
    fake.tg_message(chat=ALICE, sender=ALICE, text="hi", message_id=1)
    env.run(until(lambda: len(fake.tg.sent) == 1))
    view = env.kernel.channels.deny(codes(env)[0])
    assert view.sender == str(ALICE) and env.kernel.channels.pending() == []
    [revoke] = env.entries(PairingRevoke.KIND)
    assert revoke.actor == "user" and "denied" in revoke.reason
    fake.tg_message(chat=ALICE, sender=ALICE, text="please?", message_id=2)
    env.run(until(lambda: env.kernel.channels.figures.claimed == 2))
    env.run(env.kernel.channels.drain())
    assert len(fake.tg.sent) == 1 and env.provider.requests == []
    with pytest.raises(Exception, match="no pending pairing code"):
        env.kernel.channels.approve(codes(env)[0])


def test_a_paired_senders_photo_becomes_an_untrusted_picture_and_a_strangers_is_never_fetched(make_env):
    env = make_env()
    started(env)
    fake = paired(env, reply("A red square."), text="what is this?", photo=True)
    assert fake.hits["telegram.getFile"] == 0 and fake.hits["telegram.file"] == 0  # before approval: nothing
    env.run(until(lambda: len(fake.tg.sent) == 2))
    assert fake.tg.sent[1].text == "A red square." and fake.hits["telegram.file"] == 1
    [picture] = pictures(env)
    assert (picture.origin, picture.untrusted, picture.media_type) == ("channel", True, "image/png")
    assert (picture.width, picture.height) == (90, 60) and picture.label == "telegram photo from user501"
    [agent] = env.kernel.agents.list()
    assert any(picture in m.parts for m in env.kernel.agents.conversation(agent.id))
    assert env.ledger.blob(picture.sha256)  # fitted once and kept in the blob store
    env.provider.assert_done()


def test_an_agent_sends_a_workspace_file_to_its_chat_once_the_desktop_confirms_confined_and_capped(make_env,
                                                                                                   monkeypatch):
    approver = Confirming()
    env = make_env(approver=approver)
    env.kernel.set_attached(True)  # a desktop is there to confirm
    started(env)
    ws = Path(env.kernel.settings.workspace)
    (ws / "ok.txt").write_bytes(b"data")
    (ws / "big.txt").write_bytes(b"numbers")
    (ws.parent / "secret.txt").write_bytes(b"outside")
    monkeypatch.setattr("kernel.channels.send_file.MAX_SEND_BYTES", 5)
    send = "channel_send_file"
    fake = paired(env, reply(tools=((send, {"path": "../secret.txt"}),)), reply(tools=((send, {"path": "big.txt"}),)),
                  reply(tools=((send, {"path": "ok.txt", "caption": "Q3"}),)), reply("Sent."), text="send it")
    env.run(until(lambda: len(fake.tg.sent) == 2))
    assert fake.tg.sent[1].text == "Sent." and fake.tg.documents == [(str(ALICE), "ok.txt", b"data", "Q3")]
    [asked] = approver.asked  # the outside path and the file over the cap were refused before anyone was asked
    assert (asked.scope, asked.once) == ("channel.send_file", True)
    assert asked.detail[:2] == ("Send the file: ok.txt (4 bytes)", "To: the direct messages 501 on channel tg")
    results = [p for m in env.provider.requests[1].messages for p in m.parts if hasattr(p, "is_error")]
    assert "outside the workspace" in str(results[-1])
    assert "at most 5" in str([p for m in env.provider.requests[2].messages for p in m.parts][-1])
    assert [t.name for t in env.kernel.tools() if t.name == send] == [send]
    [intent] = env.entries(Intent.KIND)  # outward: an intent before sending, an outcome after
    [outcome] = [o for o in env.entries(Outcome.KIND) if o.cause == intent.seq]
    assert intent.tool == send and outcome.status == "done" and outcome.data["bytes"] == 4
    env.provider.assert_done()
