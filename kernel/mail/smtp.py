"""Sending over SMTP submission with aiosmtplib, step by step, so a failure says whether it left.

SMTP has no idempotency. What it does tell us is where a failure came: one
before the DATA command (connect, TLS, login, MAIL, RCPT) means the server
has not got the message (``NotDone``: safe to retry, after checking Sent);
one during or after DATA means it may have (``Uncertain``: look for the
Message-ID, never resend blindly). A refused login is one clear line.
"""

from __future__ import annotations

from email.message import EmailMessage

from ..tools.outward import NotDone, Uncertain
from .accounts import Credentials

TIMEOUT_S = 30.0


class Cut(NotDone):
    """The connection failed before DATA: not sent, and a retry (after checking Sent) is safe."""


async def send(creds: Credentials, msg: EmailMessage) -> None:
    import aiosmtplib  # lazy: 40 ms (2026-12-01)

    a = creds.account
    where = f"the SMTP server {a.smtp_host}:{a.smtp_port}"
    client = aiosmtplib.SMTP(hostname=a.smtp_host, port=a.smtp_port, timeout=TIMEOUT_S,
                             use_tls=a.smtp_tls == "ssl", start_tls=a.smtp_tls == "starttls")
    recipients = [addr for field in ("To", "Cc") for addr in _addrs(msg, field)]
    try:
        try:
            await client.connect()
            await client.login(a.user, creds.password)
        except aiosmtplib.SMTPAuthenticationError:
            raise NotDone(f"{where} refused the user name or password for {a.user} "
                          "(Gmail, Fastmail and iCloud need an app password)") from None
        except (aiosmtplib.SMTPException, OSError) as exc:
            raise Cut(f"could not reach {where}: {_why(exc)}") from None
        try:
            await client.mail(a.address)
            for rcpt in recipients:
                await client.rcpt(rcpt)
        except aiosmtplib.SMTPRecipientRefused as exc:
            raise NotDone(f"{where} refused the recipient {exc.recipient}: {_why(exc)}") from None
        except (aiosmtplib.SMTPServerDisconnected, aiosmtplib.SMTPResponseException, OSError) as exc:
            raise Cut(f"{where} failed before the message was sent: {_why(exc)}") from None
        except aiosmtplib.SMTPException as exc:
            raise NotDone(f"{where} failed before the message was sent: {_why(exc)}") from None
        try:
            await client.data(msg.as_bytes())
        except aiosmtplib.SMTPDataError as exc:
            raise NotDone(f"{where} refused the message: {_why(exc)}") from None
        except (aiosmtplib.SMTPException, OSError) as exc:
            raise Uncertain(f"the connection to {where} broke while sending: {_why(exc)}") from None
    finally:
        if client.is_connected:
            try:
                await client.quit()
            except (aiosmtplib.SMTPException, OSError):
                client.close()


def _addrs(msg: EmailMessage, field: str) -> list[str]:
    header = msg.get(field)
    if header is None:
        return []
    return [a.addr_spec for a in header.addresses]


def _why(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.replace("\r", " ").replace("\n", " ")[:200]
