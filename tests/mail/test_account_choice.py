"""The mail and calendar tools choose their account by name (default: the first), against real Dovecot,
aiosmtpd and Radicale with two users: the account is part of the idempotency key and of the confirmation,
and an unknown name is a clear error, listing the configured names, before anyone is asked."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kernel.providers.scripted import reply
from tests.fakes import mail_servers as ms
from tests.kernel.conftest import GRANT_5M, run

from .conftest import account_for
from .test_mail_tools import _go, results


@pytest.fixture
def two(accounts, servers):
    home = replace(account_for(servers, "home"), address=ms.USER2, user=ms.USER2)
    accounts.save(home, ms.PASSWORD2)
    return accounts


def _args(subject: str, **more):
    return {"to": [ms.USER], "subject": subject, "body": "From one of two accounts.\n", **more}


def test_send_from_the_named_account_files_it_in_that_accounts_sent(mail_env, servers, two):
    m = mail_env()
    m.env.approver.will(GRANT_5M)
    m.env.provider.script(reply(tools=(("mail_send", _args("From home", account="home")),)), reply("ok"))
    agent = m.env.kernel.agents.spawn("writer")
    run(_go(m, agent.id, "send"))
    [req] = m.env.approver.requests
    assert "'home'" in req.preview.summary and f"From: {ms.USER2}" in req.preview.diff
    [res] = results(m.env.provider, 1)
    assert not res.is_error, res.content
    [intent] = m.env.ledger.page(kind="intent")
    assert servers.dovecot.count("INBOX", intent.target) == 1  # delivered to alice
    assert servers.dovecot.count("Sent", intent.target, user=ms.USER2) == 1  # filed in home's (bob's) Sent
    assert servers.dovecot.count("Sent", intent.target) == 0  # not in work's


def test_the_account_is_part_of_the_key_and_the_default_is_the_first(mail_env, servers, two):
    """In one turn: the mail without an account (the first, work), the same naming work (the same call:
    replayed, not asked), and the same from home (a different intent: asked, sent)."""
    m = mail_env()
    m.env.approver.will(GRANT_5M, GRANT_5M)
    plain, work, home = _args("Keyed"), _args("Keyed", account="work"), _args("Keyed", account="home")
    m.env.provider.script(reply(tools=(("mail_send", plain), ("mail_send", work), ("mail_send", home))),
                          reply("ok"))
    agent = m.env.kernel.agents.spawn("writer")
    run(_go(m, agent.id, "send"))
    first, same, other = results(m.env.provider, 1)
    assert not first.is_error and "not sent again" in same.content and "not sent again" not in other.content
    summaries = [r.preview.summary for r in m.env.approver.requests]
    assert len(summaries) == 2 and "'work'" in summaries[0] and "'home'" in summaries[1]
    from_home, from_work = m.env.ledger.page(kind="intent")
    assert from_home.key != from_work.key
    assert servers.dovecot.count("INBOX", from_work.target) == 1 and servers.dovecot.count("INBOX", from_home.target) == 1
    assert servers.dovecot.count("Sent", from_home.target, user=ms.USER2) == 1


def test_an_unknown_account_is_a_clear_error_naming_the_accounts_before_any_ask(mail_env, servers, two):
    m = mail_env()
    calls = (("mail_send", _args("Nowhere", account="private")),
             ("mail_search", {"query": "", "account": "private"}),
             ("calendar_create", {"title": "x", "start": "2026-12-02T10:00", "end": "2026-12-02T11:00",
                                  "account": "private"}))
    m.env.provider.script(reply(tools=calls), reply("ok"))
    agent = m.env.kernel.agents.spawn("writer")
    run(_go(m, agent.id, "go"))
    assert m.env.approver.requests == []  # nobody is asked to confirm a call that cannot work
    for res in results(m.env.provider, 1):
        assert res.is_error and "no account named 'private'" in res.content and "work, home" in res.content
    assert m.env.ledger.page(kind="intent") == []


def test_reads_and_calendar_use_the_named_account(mail_env, servers, two):
    from caldav.davclient import DAVClient

    principal = DAVClient(url=servers.radicale.url, username=ms.USER2, password=ms.PASSWORD2).principal()
    if not principal.calendars():
        principal.make_calendar(name="Home", cal_id="home")
    bob_imap = servers.dovecot.imap(ms.USER2)
    try:
        bob_imap.append("INBOX", None, None, b"From: c@example.test\r\nSubject: Only for bob\r\n\r\nhi\r\n")
    finally:
        bob_imap.logout()
    m = mail_env()
    m.env.approver.will(GRANT_5M, GRANT_5M)
    event = {"title": "Bob's dentist", "start": "2026-12-03T09:00", "end": "2026-12-03T10:00", "account": "home"}
    m.env.provider.script(reply(tools=(("mail_search", {"query": "Only for bob", "account": "home"}),
                                       ("mail_search", {"query": "Only for bob"}),
                                       ("calendar_create", event))), reply("ok"))
    agent = m.env.kernel.agents.spawn("reader")
    run(_go(m, agent.id, "go"))
    home_found, work_found, created = results(m.env.provider, 1)
    assert "Only for bob" in home_found.content and "no messages" in work_found.content
    assert not created.is_error, created.content
    [intent] = m.env.ledger.page(kind="intent")
    assert any(intent.target in e.data for e in principal.calendars()[0].events())
