"""The copy in Sent is saved once, whatever moment a kill -9 hits (issue 23).

A real child process records the call and its intent, hands the mail to the real SMTP server, saves the
copy in Sent or not, and is killed before it records the outcome. At the next start the kernel's resume
finds the mail delivered; the Sent folder of the real Dovecot then holds exactly one copy: saved by the
resume when the kernel died before saving it, not saved again when it had."""

from __future__ import annotations


import pytest

from kernel.core.clock import SystemClock
from kernel.mail.tools import MailService
from kernel.tools.outward import OutwardBook
from ledger import Intent, Ledger
from tests.kernel.conftest import run

from .crashed_sender import send_then_kill9

CHILD = """
    args = {{"to": [creds.account.address], "subject": {subject!r}, "body": "the minutes"}}
    call = ledger.append(ToolCall(actor="a-9", tool="mail_send", scope="mail.send", input=args))
    key = {subject!r} + "-key"
    target = message_id_for(key, "test-salt")
    ledger.append(Intent(actor="a-9", tool="mail_send", key=key, target=target, cause=call.seq))
    msg = compose(creds.account, args, target, time.time())
    asyncio.run(smtp.send(creds, msg))
    if {copied!r}:
        imap.append(creds, creds.account.sent_folder, msg.as_bytes())
    print("sent", flush=True)
    sys.stdin.readline()  # the parent kills us here: no outcome recorded
"""


@pytest.mark.parametrize("copied", [False, True], ids=["killed-before-the-copy", "killed-after-the-copy"])
def test_after_a_kill_9_mid_send_and_resume_sent_holds_one_copy(servers, accounts, agentdesk_home, copied):
    subject = f"Minutes {'copied' if copied else 'uncopied'}"
    send_then_kill9(CHILD, agentdesk_home, subject=subject, copied=copied)
    ledger = Ledger(agentdesk_home / "ledger.db")
    try:
        [intent] = ledger.page(kind="intent")
        assert isinstance(intent, Intent)
        service = MailService(accounts).bind(ledger, SystemClock())  # the kernel that starts next, on that ledger
        settled = run(OutwardBook(ledger).resume(service.verifiers()))
        assert [o.status for o in settled] == ["done"]
        assert servers.dovecot.count("Sent", intent.target) == 1
        assert servers.dovecot.count("INBOX", intent.target) == 1  # delivered once, never re-sent
    finally:
        ledger.close()

