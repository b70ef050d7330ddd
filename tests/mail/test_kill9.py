"""kill -9 between send and record: a real child process records the intent, hands the mail to the
real SMTP server, and is killed before it can record the outcome. A new kernel's resume finds the
mail on the server and records it as done; nothing is sent twice."""

from __future__ import annotations

import json

from kernel.tools.outward import OutwardBook, unknown_intents
from ledger import Intent, Ledger
from tests.kernel.conftest import run

from .crashed_sender import send_then_kill9

CHILD = """
    key = "kill9-key"
    ledger.append(Intent(actor="a-9", tool="mail_send", key=key, target=message_id_for(key, "test-salt")))
    msg = compose(creds.account, {{"to": [creds.account.address], "subject": "Killed", "body": "x"}},
                  message_id_for(key, "test-salt"), time.time())
    asyncio.run(smtp.send(creds, msg))
    print("sent", flush=True)
    sys.stdin.readline()  # the parent kills us here: no APPEND to Sent, no outcome
"""


def test_kill_9_after_the_server_took_the_mail_is_found_on_resume(servers, accounts, agentdesk_home, mail_env):
    send_then_kill9(CHILD, agentdesk_home)
    received = len(servers.smtp.received)  # the child sent before it said so, and nothing after
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
