"""A planted mail cannot make an unknown send look sent (issue 23).

A send whose outcome is unknown is verified by its Message-ID. That id was
sha256 of the call's idempotency key, which anyone who knows the agent, the
tool, the arguments and the call id can compute: a mail planted in INBOX with
it made a send that never left look "sent". The ids are now salted with a
per-home secret kept in the home's key store (keys.json, owner-only, here:
the keyring is off in tests), so the predictable id finds nothing. Real
Dovecot and SMTP servers; the kernel's own verifier.
"""

from __future__ import annotations

import hashlib
import json
import stat

from kernel.mail import smtp
from kernel.mail.compose import compose
from kernel.mail.effect_ids import SECRET_NAME
from kernel.mail.tools import MailService
from kernel.tools.outward import OutwardBook, idempotency_key
from ledger import Intent, Ledger
from tests.fakes import mail_servers as ms
from tests.kernel.conftest import run


def predictable(key: str) -> str:
    """The Message-ID an attacker computes from what the call's record shows (the old scheme)."""
    return f"<{hashlib.sha256(key.encode()).hexdigest()}@agentdesk.invalid>"


def test_a_mail_planted_with_the_predictable_id_does_not_settle_an_unknown_send(accounts, servers, agentdesk_home,
                                                                                  tmp_path):
    service = MailService(accounts)
    args = {"to": [ms.USER], "subject": "Wire the money", "body": "Not sent yet.\n", "account": "work"}
    key = idempotency_key("a1", "mail_send", args, "call_7")
    target = service.message_id(key)
    assert target != predictable(key) and target == service.message_id(key)  # salted, and stable in this home
    creds = service.creds()
    planted = compose(creds.account, args, predictable(key), 1_700_000_000)
    run(smtp.send(creds, planted))  # someone mails the user a message with the id they could predict
    assert servers.dovecot.count("INBOX", predictable(key)) == 1

    with Ledger(tmp_path / "ledger.db") as ledger:
        intent = ledger.append(Intent(actor="a1", tool="mail_send", key=key, target=target))
        assert isinstance(intent, Intent)
        [settled] = run(OutwardBook(ledger).resume(service.bind(ledger, lambda: 0.0).verifiers()))
    assert settled.cause == intent.seq and settled.status == "unknown"  # not "done": nothing of ours is there

    keys = agentdesk_home / "keys.json"  # the home's key store (no keyring in tests): owner-only
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600 and len(json.loads(keys.read_text())[SECRET_NAME]) == 64


def test_two_homes_give_the_same_call_different_ids(accounts, tmp_path):
    from kernel.config.secrets import SecretStore
    from kernel.config.settings import SettingsStore
    from kernel.mail.accounts import AccountStore

    other = AccountStore(tmp_path, SecretStore(SettingsStore(tmp_path), use_keyring=False))
    key = idempotency_key("a1", "mail_send", {"to": [ms.USER]}, "call_1")
    mine, theirs = MailService(accounts), MailService(other)
    assert mine.message_id(key) != theirs.message_id(key)
    assert mine.event_uid(key) != theirs.event_uid(key) and mine.event_uid(key) == mine.event_uid(key)
