"""Outward calls whose outcome is unknown, as the Inbox shows them: listed with the exact message, settled by
the user's word (recorded by ``user``, never retried) or checked again on the real servers; through the
kernel, the CLI as a real process, and over the kernel service's socket."""

from __future__ import annotations

import json

import pytest

from kernel.core.errors import KernelError
from kernel.compose import build_kernel
from kernel.mail import smtp
from kernel.mail.compose import compose, message_id_for
from kernel.mail.tools import MailService
from kernel.config.settings import Settings
from ledger import KERNEL, USER, Intent, Ledger, Outcome, ToolCall
from tests.cli.test_automation_cli import agentdesk
from tests.fakes import mail_servers as ms
from tests.kernel.conftest import ScriptedApprover, run


def seed_unknown(ledger: Ledger, key: str, subject: str, agent: str = "a-1") -> Intent:
    """What a kernel leaves when it cannot tell whether a mail left: the call, its intent, ``unknown``."""
    args = {"to": [ms.USER], "subject": subject, "body": f"Body of {subject}.\n"}
    call = ledger.append(ToolCall(actor=agent, tool="mail_send", scope="mail.send", input=args, call="c-" + key))
    intent = ledger.append(Intent(actor=agent, tool="mail_send", key=key, target=message_id_for(key, "test-salt"), cause=call.seq))
    ledger.append(Outcome(actor=KERNEL, status="unknown", detail="the connection broke; not found on the server",
                          cause=intent.seq))
    assert isinstance(intent, Intent)
    return intent


@pytest.fixture
def kernel(accounts, agentdesk_home, tmp_path):
    ledger = Ledger(tmp_path / "ledger.db")
    k = build_kernel(ledger=ledger, settings=Settings(user_name="Ada", workspace=str(tmp_path)),
               providers=lambda _n: None, approver=ScriptedApprover(), mail=MailService(accounts))
    yield k
    run(k.aclose())
    ledger.close()


def test_listed_with_the_message_settled_by_the_user_and_never_retried(kernel, servers):
    ledger = kernel._services.ledger
    lost = seed_unknown(ledger, "k-lost", "Lost minutes")
    late = seed_unknown(ledger, "k-late", "Late minutes")
    received = len(servers.smtp.received)
    newest, oldest = kernel.outward.unknown()
    assert (newest.intent_seq, oldest.intent_seq) == (late.seq, lost.seq)
    assert newest.tool == "mail_send" and newest.actor == "a-1" and "connection broke" in newest.detail
    assert f"To: {ms.USER}" in newest.shown and "Subject: Late minutes" in newest.shown
    assert f"Message-ID: {late.target}" in newest.shown and newest.shown.endswith("Body of Late minutes.\n")
    assert f"From: {ms.USER}" in newest.shown and newest.shown.startswith("Account: work\n")  # exactly as sent
    # the late one did reach the server after all: a check finds it and records it as done (by the kernel)
    creds = kernel.outward._mail.creds()
    run(smtp.send(creds, compose(creds.account, {"to": [ms.USER], "subject": "Late minutes", "body": "x"},
                                 late.target, 1_700_000_000)))
    assert run(kernel.outward.recheck(late.seq)) == "done"
    assert run(kernel.outward.recheck(lost.seq)) == "unknown"  # still not there: nothing recorded, not retried
    assert [u.intent_seq for u in kernel.outward.unknown()] == [lost.seq]
    kernel.outward.settle(lost.seq, sent=False)
    assert kernel.outward.unknown() == []
    said = [o for o in ledger.page(kind="outcome") if o.cause == lost.seq and o.actor == USER]
    assert [o.status for o in said] == ["failed"] and "not retried" in said[0].detail
    found = [o for o in ledger.page(kind="outcome") if o.cause == late.seq and o.status == "done"]
    assert found[0].actor == "a-1" and found[0].data == {"verified": True}  # the agent's call, verified
    assert len(servers.smtp.received) == received + 1  # only the test's own delivery: nothing was resent
    with pytest.raises(KernelError, match="not waiting for a check"):
        kernel.outward.settle(lost.seq, sent=True)  # settled once
    with pytest.raises(KernelError, match="not an outward call"):
        kernel.outward.settle(1, sent=True)


def test_the_user_saying_it_was_sent_is_recorded_as_done_by_user(kernel, servers):
    ledger = kernel._services.ledger
    u = seed_unknown(ledger, "k-said", "Said sent")
    kernel.outward.settle(u.seq, sent=True)
    [said] = [o for o in ledger.page(kind="outcome") if o.actor == USER]
    assert said.status == "done" and said.cause == u.seq and kernel.outward.unknown() == []


def test_agentdesk_inbox_lists_them_json_too_and_records_the_users_word(agentdesk_home, accounts, servers):
    ledger = Ledger(agentdesk_home / "ledger.db")
    try:
        u = seed_unknown(ledger, "k-cli", "From the CLI")
    finally:
        ledger.close()
    listed = agentdesk(["inbox"], agentdesk_home)
    assert listed.returncode == 0, listed.stderr
    assert f"#{u.seq}" in listed.stdout and "mail_send" in listed.stdout and "Subject: From the CLI" in listed.stdout
    [line] = agentdesk(["inbox", "--json"], agentdesk_home).stdout.splitlines()
    item = json.loads(line)
    assert item["kind"] == "outward" and item["intent_seq"] == u.seq and "Subject: From the CLI" in item["shown"]
    checked = agentdesk(["inbox", "recheck", str(u.seq)], agentdesk_home)
    assert checked.returncode == 0, checked.stderr
    assert "still not found" in checked.stdout
    said = agentdesk(["inbox", "not-sent", str(u.seq)], agentdesk_home)
    assert said.returncode == 0 and "recorded as not sent" in said.stdout
    assert agentdesk(["inbox"], agentdesk_home).stdout.strip() == "The Inbox is empty."
    again = agentdesk(["inbox", "sent", str(u.seq)], agentdesk_home)
    assert again.returncode == 2 and "not waiting for a check" in again.stderr and "Traceback" not in again.stderr


def test_over_the_kernel_services_socket(agentdesk_home, accounts, servers):
    """A real kernel process serves the three methods; RemoteKernel gives the same values and errors."""
    from kernel.service.client import RemoteKernel
    from tests.service.conftest import KernelProcess, clean_env

    ledger = Ledger(agentdesk_home / "ledger.db")
    try:
        u = seed_unknown(ledger, "k-socket", "Over the socket")
    finally:
        ledger.close()
    proc = KernelProcess(agentdesk_home, clean_env(agentdesk_home)).start()

    async def body():
        k = await RemoteKernel.for_home(agentdesk_home, client="test").start()
        try:
            [listed] = k.outward.unknown()
            assert listed.intent_seq == u.seq and "Subject: Over the socket" in listed.shown
            assert await k.outward.recheck(u.seq) == "unknown"
            k.outward.settle(u.seq, True)
            assert k.outward.unknown() == []
            with pytest.raises(KernelError, match="not waiting for a check"):
                k.outward.settle(u.seq, False)
        finally:
            await k.aclose()

    try:
        run(body())
    finally:
        assert proc.stop() == 0
