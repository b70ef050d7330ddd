"""A recipient or attendee made of invisible characters is refused by the kernel before anyone is asked.

``\\u202e@\\u202d`` has an ``@`` and no space, so the address parser takes it; in every preview it reads as
nothing, or (with letters around it) as another address. The model gets an error result in words; nothing
is asked, recorded as an intent, sent or invited. Real kernel, real Dovecot, aiosmtpd and Radicale."""

from __future__ import annotations

from kernel.mail import compose as composing
from kernel.mail.errors import MailError
from kernel.providers.scripted import reply
from tests.fakes import mail_servers as ms
from tests.kernel.conftest import GRANT_5M, run

from .test_mail_tools import _go, results

INVISIBLE = ("\u202e@\u202d", "\u200b@\u200b", "\x01@\x02", "\u2066@\u2069")


def test_a_recipient_made_of_control_or_format_characters_is_an_error_the_model_sees(mail_env, servers):
    m = mail_env()
    m.env.approver.will(GRANT_5M)
    before = servers.dovecot.count("INBOX")
    calls = tuple(("mail_send", {"to": [ms.USER], "cc": [bad], "subject": "s", "body": "b"}) for bad in INVISIBLE)
    m.env.provider.script(reply(tools=calls + (("mail_send", {"to": ["\u202e@\u202d"], "subject": "s", "body": "b"}),)),
                          reply("ok"))
    agent = m.env.kernel.agents.spawn("writer")
    run(_go(m, agent.id, "send"))
    found = results(m.env.provider, 1)
    assert len(found) == len(INVISIBLE) + 1
    for res in found:
        assert res.is_error and "invisible character U+" in res.content, res.content
    assert m.env.approver.requests == []  # refused before anyone was asked
    assert m.env.ledger.page(kind="intent") == [] and servers.dovecot.count("INBOX") == before


def test_an_attendee_made_of_invisible_characters_is_refused_and_nobody_is_invited(mail_env, servers):
    m = mail_env()
    m.env.approver.will(GRANT_5M)
    args = {"title": "Sync", "start": "2026-12-03T10:00", "end": "2026-12-03T11:00",
            "attendees": ["ann@example.org", "\u202e@\u202d"]}
    m.env.provider.script(reply(tools=(("calendar_create", args),)), reply("ok"))
    agent = m.env.kernel.agents.spawn("planner")
    run(_go(m, agent.id, "book"))
    [res] = results(m.env.provider, 1)
    assert res.is_error and "attendees" in res.content and "U+202E" in res.content
    assert m.env.approver.requests == [] and m.env.ledger.page(kind="intent") == []


def test_names_written_right_to_left_stay_allowed_and_hidden_characters_in_an_address_do_not():
    from kernel.mail.accounts import Account

    account = Account(name="w", address="me@example.com", user="me", imap_host="h", smtp_host="h", caldav_url="")
    msg = composing.compose(account, {"to": ["\u05d0\u05d1\u200f <ann@example.org>"], "subject": "s", "body": ""}, None, 0)
    assert "ann@example.org" in msg["To"]  # a right-to-left mark inside a Hebrew name is how it is written
    for bad in ("ann\u202e@example.org", "\u200b <ann@example.org>", "Ann\x07 <ann@example.org>"):
        try:
            composing.compose(account, {"to": [bad], "subject": "s", "body": ""}, None, 0)
        except MailError as exc:
            assert "invisible character" in exc.message and "\n" not in exc.message
        else:
            raise AssertionError(f"{bad!r} was accepted")
    assert composing.attendee_addresses(["Ann <ann@example.org>"]) == ["ann@example.org"]
    try:
        composing.attendee_addresses("ann@example.org")
    except MailError as exc:
        assert "list" in exc.message
    else:
        raise AssertionError("a bare string was taken as a list of attendees")
