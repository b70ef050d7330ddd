"""The exact mail a send will deliver, built once from the call and shown in the confirmation.

Header injection is refused here: a To, Cc or Subject holding a line break or
an address list the parser cannot read is an error the model sees, not a
silently altered mail. The Message-ID comes from the call's idempotency key,
salted with the home's secret (``<hmac-sha256(salt, key)@agentdesk.invalid>``,
``effect_ids``), so the Sent folder can be searched for it before any retry
and nobody can plant a mail that matches it. ``Date`` comes from the injected
clock.

A recipient holding a control or format character (a bidi override, a
zero-width space) is refused: ``\u202e@\u202d`` has an ``@`` and no
space, so the parser takes it, yet it reads as nothing or as another
address in every preview. The same rule holds for calendar attendees
(``attendee_addresses``), who are sent invitations.
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
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


def _unseen(c: str) -> bool:
    """A control (Cc) or format (Cf: bidi overrides and isolates, zero-width characters) character."""
    return unicodedata.category(c) in ("Cc", "Cf")


def _hidden(name: str, addr: str) -> str | None:
    """The first character that must not be in a recipient: any control or format character in the address, a
    control character in the name, a format character in a name made only of them (a right-to-left mark
    inside a Hebrew or Arabic name is how that name is written)."""
    name_blank = all(_unseen(c) or c.isspace() for c in name)
    for c in addr + name:
        if _unseen(c) and (c in addr or unicodedata.category(c) == "Cc" or name_blank):
            return c
    return None


def _parsed(value: Any, what: str) -> list[tuple[str, str]]:
    """(display name, address) for each recipient of ``value``, refused in words when one is not plainly an
    address: a line break, no ``@``, a space, a control or format character in the address, or a name that
    is made only of such characters."""
    items = value if isinstance(value, list) else [value] if isinstance(value, str) and value else []
    out = []
    for item in items:
        if not isinstance(item, str) or "\r" in item or "\n" in item:
            raise MailError("config", f"{what}: an address may not hold a line break")
        for name, addr in getaddresses([item]):
            if "@" not in addr or any(c.isspace() for c in addr):
                raise MailError("config", f"{what}: {item[:80]!r} is not a mail address")
            hidden = _hidden(name, addr)
            if hidden is not None:
                raise MailError("config", f"{what}: {item[:80]!r} holds the invisible character U+{ord(hidden):04X}, "
                                "which hides or reorders what the address reads as; write the address plainly")
            out.append((name, addr))
    if len(out) > MAX_RECIPIENTS:
        raise MailError("config", f"{what}: at most {MAX_RECIPIENTS} recipients")
    return out


def _addresses(value: Any, what: str) -> list[str]:
    return [str(Address(display_name=name, addr_spec=addr)) if name else addr for name, addr in _parsed(value, what)]


def attendee_addresses(value: Any) -> list[str]:
    """The bare addresses a calendar event invites, under the same rules as a mail's recipients."""
    if value is not None and not isinstance(value, list):
        raise MailError("config", "attendees: a list of mail addresses")
    return [addr for _name, addr in _parsed(value or [], "attendees")]


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
