"""Checking an account when it is saved: each server tried in turn, each failure one plain line."""

from __future__ import annotations

import asyncio

from .accounts import Credentials
from .errors import MailError


async def check_account(creds: Credentials) -> list[str]:
    """What failed (``IMAP: …``, ``SMTP: …``, ``CalDAV: …``); empty when every server accepted the login."""
    from . import calendar, imap

    problems = []
    try:
        await asyncio.to_thread(imap.check, creds)
    except MailError as exc:
        problems.append(f"IMAP: {exc.message}")
    smtp_problem = await _check_smtp(creds)
    if smtp_problem:
        problems.append(f"SMTP: {smtp_problem}")
    if creds.account.caldav_url:
        try:
            await asyncio.to_thread(calendar.check, creds)
        except MailError as exc:
            problems.append(f"CalDAV: {exc.message}")
    return problems


async def _check_smtp(creds: Credentials) -> str | None:
    import aiosmtplib

    a = creds.account
    client = aiosmtplib.SMTP(hostname=a.smtp_host, port=a.smtp_port, timeout=20,
                             use_tls=a.smtp_tls == "ssl", start_tls=a.smtp_tls == "starttls")
    try:
        await client.connect()
        await client.login(a.user, creds.password)
    except aiosmtplib.SMTPAuthenticationError:
        return (f"the SMTP server {a.smtp_host}:{a.smtp_port} refused the user name or password for {a.user} "
                "(Gmail, Fastmail and iCloud need an app password)")
    except (aiosmtplib.SMTPException, OSError) as exc:
        return f"could not reach the SMTP server {a.smtp_host}:{a.smtp_port}: {str(exc)[:200] or type(exc).__name__}"
    finally:
        if client.is_connected:
            try:
                await client.quit()
            except (aiosmtplib.SMTPException, OSError):
                client.close()
    return None
