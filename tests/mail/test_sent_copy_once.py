"""The copy in Sent is saved once, whatever moment a kill -9 hits (issue 23).

A real child process records the call and its intent, hands the mail to the real SMTP server, saves the
copy in Sent or not, and is killed before it records the outcome. At the next start the kernel's resume
finds the mail delivered; the Sent folder of the real Dovecot then holds exactly one copy: saved by the
resume when the kernel died before saving it, not saved again when it had."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kernel.core.clock import SystemClock
from kernel.mail.tools import MailService
from kernel.tools.outward import OutwardBook
from ledger import Intent, Ledger
from tests.kernel.conftest import run

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import asyncio, sys, time
    sys.path.insert(0, {root!r})
    from kernel.mail.accounts import AccountStore
    from kernel.mail.compose import compose, message_id_for
    from kernel.mail import imap, smtp
    from kernel.config.secrets import SecretStore
    from kernel.config.settings import SettingsStore
    from ledger import Intent, Ledger, ToolCall

    from pathlib import Path
    home = Path({home!r})
    ledger = Ledger(home / "ledger.db")
    creds = AccountStore(home, SecretStore(SettingsStore(home), use_keyring=False)).credentials()
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
""")


@pytest.mark.parametrize("copied", [False, True], ids=["killed-before-the-copy", "killed-after-the-copy"])
def test_after_a_kill_9_mid_send_and_resume_sent_holds_one_copy(servers, accounts, agentdesk_home, copied):
    subject = f"Minutes {'copied' if copied else 'uncopied'}"
    script = CHILD.format(root=str(ROOT), home=str(agentdesk_home), subject=subject, copied=copied)
    child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env={**os.environ, "AGENTDESK_KEYRING": "off"})
    try:
        line = child.stdout.readline()  # blocks until the child has sent (a real process, no sleeping)
        assert line.strip() == "sent", child.stderr.read()
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(10) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(5)
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

