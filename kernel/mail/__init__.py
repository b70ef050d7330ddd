"""Mail (IMAP, SMTP) and calendars (CalDAV): accounts, the five tools (``kernel.mail.tools``, imported
only when an account exists), and the connection check (``kernel.mail.connection``)."""

from .accounts import Account, AccountStore, Credentials
from .errors import MailError

__all__ = ["Account", "AccountStore", "Credentials", "MailError"]
