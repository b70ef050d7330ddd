"""The exact mail a send will deliver, built once from the call and shown in the confirmation.

Header injection is refused here: a To, Cc or Subject holding a line break or
an address list the parser cannot read is an error the model sees, not a
silently altered mail. The Message-ID comes from the call's idempotency key,
salted with the home's secret (``<hmac-sha256(salt, key)@agentdesk.invalid>``,
``effect_ids``), so the Sent folder can be searched for it before any retry
and nobody can plant a mail that matches it. ``Date`` comes from the injected
clock.
"""

from __future__ import annotations

import hashlib
import hmac
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, getaddresses
from datetime import datetime, timezone
from typing import Any, Mapping

from .accounts import Account
from .errors import MailError

MAX_RECIPIENTS = 50


def message_id_for(key: str, salt: str) -> str:
    """The Message-ID of the send whose idempotency key is ``key``, under the home's ``salt``."""
    return f"<{hmac.new(salt.encode(), key.encode(), hashlib.sha256).hexdigest()}@agentdesk.invalid>"


def _addresses(value: Any, what: str) -> list[str]:
    items = value if isinstance(value, list) else [value] if isinstance(value, str) and value else []
    out = []
    for item in items:
        if not isinstance(item, str) or "\r" in item or "\n" in item:
            raise MailError("config", f"{what}: an address may not hold a line break")
        for name, addr in getaddresses([item]):
            if "@" not in addr or any(c.isspace() for c in addr):
                raise MailError("config", f"{what}: {item[:80]!r} is not a mail address")
            out.append(str(Address(display_name=name, addr_spec=addr)) if name else addr)
    if len(out) > MAX_RECIPIENTS:
        raise MailError("config", f"{what}: at most {MAX_RECIPIENTS} recipients")
    return out


def compose(account: Account, args: Mapping[str, Any], message_id: str | None, now: float) -> EmailMessage:
    """The message for ``mail_send`` args; ``message_id`` None gives the preview (ids are set on send)."""
    to = _addresses(args.get("to"), "to")
    if not to:
        raise MailError("config", "to: at least one recipient is needed")
    cc = _addresses(args.get("cc"), "cc")
    subject = str(args.get("subject", ""))
    if "\r" in subject or "\n" in subject:
        raise MailError("config", "subject: no line breaks")
    msg = EmailMessage()
    msg["From"] = account.address
    msg["To"] = ", ".join(to)
    if cc:
        msg["Cc"] = ", ".join(cc)
    msg["Subject"] = subject
    msg["Date"] = format_datetime(datetime.fromtimestamp(now, timezone.utc))
    reply = args.get("in_reply_to")
    if reply:
        if not isinstance(reply, str) or not reply.startswith("<") or "\n" in reply or "\r" in reply:
            raise MailError("config", "in_reply_to: a Message-ID like <abc@example.com>")
        msg["In-Reply-To"] = reply
        msg["References"] = reply
    msg["Message-ID"] = message_id or "<set when sent>"
    msg.set_content(str(args.get("body", "")))
    return msg


def shown(msg: EmailMessage) -> str:
    """The message as the confirmation shows it: headers, a blank line, the body text. Date and
    Message-ID (from the call's idempotency key) are added when it is sent."""
    hidden = ("content-type", "content-transfer-encoding", "mime-version", "date", "message-id")
    head = "\n".join(f"{k}: {v}" for k, v in msg.items() if k.lower() not in hidden)
    body = msg.get_content() if not msg.is_multipart() else ""
    return f"{head}\n\n{body}"
