"""Mail and calendar tools against real Dovecot, aiosmtpd and Radicale on loopback, through a real kernel:
reads are untrusted, sends are confirmed and happen exactly once, a crash between send and record is
found on resume, and a wrong password is one clear line."""

from __future__ import annotations

import asyncio
from email.message import EmailMessage

from kernel.core.events import ToolCallFinished
from kernel.mail import imap
from kernel.mail.compose import compose, message_id_for
from kernel.mail.connection import check_account
from kernel.mail.html_text import html_to_text
from kernel.tools.outward import OutwardBook, unknown_intents
from kernel.providers.scripted import reply
from kernel.core.states import Outcome as CallOutcome
from ledger import Intent, Outcome
from tests.fakes import mail_servers as ms
from tests.kernel.conftest import DENY, GRANT_5M, HANG, run, until

from .conftest import account_for


async def _go(m, agent_id, text):
    m.env.kernel.agents.send(agent_id, text)
    await m.env.kernel.agents.wait(agent_id)


def results(provider, index):
    from kernel.core.messages import ToolResultPart

    return [p for p in provider.requests[index].messages[-1].parts if isinstance(p, ToolResultPart)]


def _incoming(subject: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = "Bob <bob@example.test>"
    msg["To"] = ms.USER
    msg["Subject"] = subject
    msg["Message-ID"] = f"<{subject.replace(' ', '-')}@example.test>"
    msg.set_content("plain part")
    msg.add_alternative("<html><head><style>p{}</style></head><body><p>Numbers <b>attached</b>.</p>"
                        "<script>evil()</script><a href='https://x.test/r'>report</a></body></html>", subtype="html")
    msg.add_attachment(b"1,2,3\n", maintype="text", subtype="csv", filename="q3.csv")
    return msg.as_bytes()


def test_search_and_read_are_untrusted_and_show_text_and_attachment_names(mail_env, servers):
    m = mail_env()
    servers.dovecot.append("INBOX", _incoming("Quarterly report"))
    m.env.approver.will(GRANT_5M)
    m.env.provider.script(reply(tools=(("mail_search", {"query": "Quarterly"}),)), reply("found"))
    agent = m.env.kernel.agents.spawn("reader")
    run(_go(m, agent.id, "go"))
    [res] = results(m.env.provider, 1)
    assert not res.is_error and "Quarterly report" in res.content and "bob@example.test" in res.content
    assert res.content.startswith('<untrusted source="mail_search')  # the mailbox is untrusted content
    message_id = res.content.split("\n", 1)[1].split("\t")[0]
    assert message_id.startswith("INBOX/")
    m.env.provider.script(reply(tools=(("mail_read", {"id": message_id}),)), reply("read"))
    run(_go(m, agent.id, "read it"))
    [res] = results(m.env.provider, 3)
    assert "Subject: Quarterly report" in res.content and "q3.csv" in res.content
    assert "plain part" in res.content  # the text part is preferred over the HTML
    tools = {t.name: t for t in m.env.kernel.tools()}
    assert tools["mail_read"].trusted is False and tools["mail_read"].risk == "R2"
    assert tools["mail_send"].risk == "R3" and tools["calendar_create"].risk == "R3"
    assert [r.scope for r in m.env.approver.requests] == ["mail.read"]


def test_html_only_mail_becomes_text_without_scripts():
    text = html_to_text("<html><head><title>t</title><style>x</style></head><body><h1>Hi</h1><p>Numbers "
                        "<b>attached</b>.</p><script>evil()</script><ul><li>one</li></ul>"
                        "<a href='https://x.test/r'>report</a>&amp;</body></html>")
    assert "evil" not in text and "Numbers attached." in text and "- one" in text
    assert "report [https://x.test/r]&" in text


def _send_args(subject="Minutes", body="Here are the minutes.\n"):
    return {"to": [ms.USER], "subject": subject, "body": body}


def test_send_with_confirmation_shows_the_exact_message_and_sends_once(mail_env, servers):
    m = mail_env()
    m.env.approver.will(GRANT_5M)
    m.env.provider.script(reply(tools=(("mail_send", _send_args("Minutes A")),)), reply("sent"))
    agent = m.env.kernel.agents.spawn("writer")
    run(_go(m, agent.id, "send it"))
    [req] = m.env.approver.requests
    assert req.scope == "mail.send" and req.preview is not None
    assert f"To: {ms.USER}" in req.preview.diff and "Subject: Minutes A" in req.preview.diff
    assert "Here are the minutes." in req.preview.diff and f"From: {ms.USER}" in req.preview.diff
    [res] = results(m.env.provider, 1)
    assert not res.is_error and "sent to" in res.content
    [intent] = m.env.ledger.page(kind="intent")
    [outcome] = m.env.ledger.page(kind="outcome")
    assert isinstance(intent, Intent) and isinstance(outcome, Outcome)
    assert outcome.status == "done" and outcome.cause == intent.seq
    assert intent.target == m.service.message_id(intent.key)
    assert servers.dovecot.count("INBOX", intent.target) == 1
    assert servers.dovecot.count("Sent", intent.target) == 1  # Dovecot does not file it: we APPEND


def test_identical_send_twice_in_one_turn_sends_once_and_asks_once(mail_env, servers):
    """The second identical call in the turn returns the first outcome before any confirmation: one mail in
    the mailbox, one confirmation asked. The same call in a later turn is a new intent, confirmed again."""
    m = mail_env()
    m.env.approver.will(GRANT_5M)  # one answer only: a second confirmation would find none and fail the test
    args = _send_args("Twice")
    m.env.provider.script(reply(tools=(("mail_send", args), ("mail_send", args))), reply("ok"))
    agent = m.env.kernel.agents.spawn("writer")
    run(_go(m, agent.id, "send"))
    assert [r.once for r in m.env.approver.requests] == [True]
    first, second = results(m.env.provider, 1)
    assert not first.is_error and not second.is_error and "was not sent again" in second.content
    [intent] = m.env.ledger.page(kind="intent")
    assert servers.dovecot.count("INBOX", intent.target) == 1
    calls = [e for e in m.env.ledger.page(kind="tool") if e.tool == "mail_send"]
    assert len(calls) == 2 and calls[0].lease is None and calls[0].confirmed is None  # newest first: the replay
    assert calls[1].confirmed is not None
    m.env.approver.will(GRANT_5M)
    m.env.provider.script(reply(tools=(("mail_send", args),)), reply("ok"))
    run(_go(m, agent.id, "send it again"))
    assert len(m.env.approver.requests) == 2  # a later turn: asked again
    [again] = results(m.env.provider, 3)
    assert not again.is_error and "not sent again" not in again.content
    later, first_intent = m.env.ledger.page(kind="intent")
    assert first_intent.seq == intent.seq and later.target != intent.target
    assert servers.dovecot.count("INBOX", later.target) == 1 and servers.dovecot.count("INBOX", intent.target) == 1


def test_denied_send_sends_nothing_and_records_no_intent(mail_env, servers):
    m = mail_env()
    m.env.approver.will(DENY)
    before = servers.dovecot.count("INBOX")
    m.env.provider.script(reply(tools=(("mail_send", _send_args("Denied")),)), reply("ok"))
    agent = m.env.kernel.agents.spawn("writer")
    run(_go(m, agent.id, "send"))
    [res] = results(m.env.provider, 1)
    assert res.is_error and "permission denied" in res.content
    assert m.env.ledger.page(kind="intent") == [] and servers.dovecot.count("INBOX") == before


def test_unanswered_confirmation_expires_and_sends_nothing(mail_env, servers):
    m = mail_env()
    m.env.approver.will(HANG)
    before = servers.dovecot.count("INBOX")
    m.env.provider.script(reply(tools=(("mail_send", _send_args("Expired")),)), reply("ok"))
    agent = m.env.kernel.agents.spawn("writer")

    async def go():
        m.env.kernel.agents.send(agent.id, "send")
        await until(lambda: bool(m.env.approver.requests))
        m.env.clock.advance(3600)
        await m.env.kernel.agents.wait(agent.id)

    run(go())
    [res] = results(m.env.provider, 1)
    assert res.is_error and "expired" in res.content
    finished = [e for e in m.env.events if isinstance(e, ToolCallFinished)]
    assert finished[-1].outcome is CallOutcome.EXPIRED
    assert m.env.ledger.page(kind="intent") == [] and servers.dovecot.count("INBOX") == before


def test_cut_before_data_is_retried_after_checking_sent_one_message(mail_env, servers):
    m = mail_env()
    servers.smtp.cut.append("before")
    m.env.approver.will(GRANT_5M)
    m.env.provider.script(reply(tools=(("mail_send", _send_args("Cut before")),)), reply("ok"))
    agent = m.env.kernel.agents.spawn("writer")
    run(_go(m, agent.id, "send"))
    [res] = results(m.env.provider, 1)
    assert not res.is_error, res.content
    [intent] = m.env.ledger.page(kind="intent")
    assert servers.dovecot.count("INBOX", intent.target) == 1
    assert servers.smtp.cut == []


def test_cut_after_the_server_took_it_is_verified_not_resent(mail_env, servers):
    m = mail_env()
    servers.smtp.cut.append("after")
    received = len(servers.smtp.received)
    m.env.approver.will(GRANT_5M)
    m.env.provider.script(reply(tools=(("mail_send", _send_args("Cut after")),)), reply("ok"))
    agent = m.env.kernel.agents.spawn("writer")
    run(_go(m, agent.id, "send"))
    [res] = results(m.env.provider, 1)
    [intent] = m.env.ledger.page(kind="intent")
    [outcome] = m.env.ledger.page(kind="outcome")
    assert outcome.status == "done" and outcome.data.get("verified") is True
    assert not res.is_error
    assert len(servers.smtp.received) == received + 1  # the server was handed it exactly once
    assert servers.dovecot.count("INBOX", intent.target) == 1


def test_abandoned_kernel_between_send_and_record_is_found_on_resume(mail_env, servers, accounts):
    """The first kernel records the intent and the server accepts the mail; it dies before the outcome.
    A new kernel over the same ledger verifies the open intent: found → done; a mail that never left →
    unknown, listed for the Inbox, and not sent."""
    m = mail_env()
    ledger = m.env.ledger
    creds = accounts.credentials()
    key_sent, key_lost = "k-sent", "k-lost"
    sent = ledger.append(Intent(actor="a-1", tool="mail_send", key=key_sent, target=message_id_for(key_sent, "test-salt")))
    lost = ledger.append(Intent(actor="a-1", tool="mail_send", key=key_lost, target=message_id_for(key_lost, "test-salt")))
    msg = compose(creds.account, _send_args("Crashed"), message_id_for(key_sent, "test-salt"), 1_700_000_000)

    async def first_kernel_sends():
        from kernel.mail import smtp
        await smtp.send(creds, msg)  # ...and the kernel dies here: no APPEND, no outcome

    run(first_kernel_sends())
    received = len(servers.smtp.received)
    resumed = OutwardBook(ledger)  # a fresh kernel's book
    settled = run(resumed.resume(m.service.verifiers()))
    by_intent = {o.cause: o.status for o in settled}
    assert by_intent == {sent.seq: "done", lost.seq: "unknown"}
    assert len(servers.smtp.received) == received  # nothing was resent
    [unknown] = unknown_intents(ledger)
    assert unknown.intent_seq == lost.seq and unknown.tool == "mail_send" and "not retried" in unknown.detail
    assert run(resumed.resume(m.service.verifiers())) == []  # settled once


def _calendar(servers):
    from caldav.davclient import DAVClient

    client = DAVClient(url=servers.radicale.url, username=ms.USER, password=ms.PASSWORD)
    principal = client.principal()
    if not principal.calendars():
        principal.make_calendar(name="Work", cal_id="work")
    return principal.calendars()[0]


def test_create_twice_gives_one_event(mail_env, servers):
    cal = _calendar(servers)
    m = mail_env()
    args = {"title": "Design review", "start": "2026-12-02T10:00", "end": "2026-12-02T11:00",
            "timezone": "Europe/Paris", "location": "Room 4"}
    m.env.approver.will(GRANT_5M)  # the identical second call gives the first outcome without asking
    m.env.provider.script(reply(tools=(("calendar_create", args), ("calendar_create", args))), reply("ok"))
    agent = m.env.kernel.agents.spawn("planner")
    run(_go(m, agent.id, "book it"))
    [req] = m.env.approver.requests
    assert req.once
    assert "Title: Design review" in req.preview.diff and "Room 4" in req.preview.diff
    first, second = results(m.env.provider, 1)
    assert not first.is_error and "not sent again" in second.content
    [intent] = m.env.ledger.page(kind="intent")
    events = [e for e in cal.events() if intent.target in e.data]
    assert len(events) == 1 and "Design review" in events[0].data
    # replaying the create with the same UID straight at the server is refused: exactly once by construction
    from kernel.mail import calendar
    again = calendar.create(accounts_creds(m), intent.target, args)
    assert again["already"] == "yes"
    assert len([e for e in cal.events() if intent.target in e.data]) == 1
    m.env.approver.will(GRANT_5M)
    m.env.provider.script(reply(tools=(("calendar_list", {"from": "2026-12-02T00:00", "to": "2026-12-03T00:00"}),)),
                          reply("ok"))
    run(_go(m, agent.id, "list"))
    [res] = results(m.env.provider, 3)
    assert "Design review" in res.content and "Room 4" in res.content


def accounts_creds(m):
    return m.service.creds()


def test_wrong_password_is_one_clear_line_per_server(servers, accounts):
    from kernel.mail.accounts import Credentials

    bad = Credentials(account_for(servers), "wrong")
    problems = asyncio.run(check_account(bad))
    assert [p.split(":")[0] for p in problems] == ["IMAP", "SMTP", "CalDAV"]
    assert all("\n" not in p and "refused the user name or password" in p and "wrong" not in p for p in problems), problems
    assert asyncio.run(check_account(accounts.credentials())) == []


def test_wrong_password_in_a_tool_is_one_line_the_model_sees(mail_env, servers, accounts):
    accounts.secrets.set("account:work", "wrong")
    m = mail_env()
    m.env.approver.will(GRANT_5M)
    m.env.provider.script(reply(tools=(("mail_search", {"query": ""}),)), reply("ok"))
    agent = m.env.kernel.agents.spawn("reader")
    run(_go(m, agent.id, "go"))
    [res] = results(m.env.provider, 1)
    assert res.is_error and "refused the user name or password" in res.content and "\n" not in res.content


def test_hostile_ids_and_headers_are_clear_errors(mail_env, servers, accounts):
    creds = accounts.credentials()
    for bad in ("nope", "INBOX/abc", 'x"y/1'):
        try:
            imap.read(creds, bad)
        except imap.MailError as exc:
            assert "\n" not in exc.message
        else:
            raise AssertionError(f"{bad!r} was accepted")
    try:
        compose(creds.account, {"to": ["a@b.test\r\nBcc: all@x.test"], "subject": "s", "body": ""}, None, 0)
    except imap.MailError as exc:
        assert "line break" in exc.message
    else:
        raise AssertionError("header injection accepted")
