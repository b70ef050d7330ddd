"""kill -9 between send and record: a real child process records the intent, hands the mail to the
real SMTP server, and is killed before it can record the outcome. A new kernel's resume finds the
mail on the server and records it as done; nothing is sent twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from kernel.tools.outward import OutwardBook, unknown_intents
from ledger import Intent, Ledger
from tests.kernel.conftest import run

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import asyncio, json, sys, time
    sys.path.insert(0, {root!r})
    from kernel.mail.accounts import AccountStore
    from kernel.mail.compose import compose, message_id_for
    from kernel.mail import smtp
    from kernel.config.secrets import SecretStore
    from kernel.config.settings import SettingsStore
    from ledger import Intent, Ledger

    from pathlib import Path
    home = Path({home!r})
    ledger = Ledger(home / "ledger.db")
    creds = AccountStore(home, SecretStore(SettingsStore(home), use_keyring=False)).credentials()
    key = "kill9-key"
    ledger.append(Intent(actor="a-9", tool="mail_send", key=key, target=message_id_for(key, "test-salt")))
    msg = compose(creds.account, {{"to": [creds.account.address], "subject": "Killed", "body": "x"}},
                  message_id_for(key, "test-salt"), time.time())
    asyncio.run(smtp.send(creds, msg))
    print("sent", flush=True)
    sys.stdin.readline()  # the parent kills us here: no APPEND to Sent, no outcome
""")


def test_kill_9_after_the_server_took_the_mail_is_found_on_resume(servers, accounts, agentdesk_home, mail_env):
    script = CHILD.format(root=str(ROOT), home=str(agentdesk_home))
    env = {**os.environ, "AGENTDESK_KEYRING": "off"}
    child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = child.stdout.readline()  # blocks until the child has sent (a real process, no sleeping)
        assert line.strip() == "sent", child.stderr.read()
        received = len(servers.smtp.received)
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(10) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(5)
    ledger = Ledger(agentdesk_home / "ledger.db")
    try:
        [intent] = ledger.page(kind="intent")
        assert isinstance(intent, Intent) and ledger.caused_by(intent.seq) == []
        m = mail_env()
        settled = run(OutwardBook(ledger).resume(m.service.verifiers()))
        assert [(o.cause, o.status) for o in settled] == [(intent.seq, "done")]
        assert json.loads(json.dumps(settled[0].data)) == {"verified": True}
        assert unknown_intents(ledger) == [] and len(servers.smtp.received) == received
        assert servers.dovecot.count("INBOX", intent.target) == 1
    finally:
        ledger.close()
