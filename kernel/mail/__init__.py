"""Mail (IMAP, SMTP) and calendars (CalDAV): accounts, the five tools, and the connection check."""

from .accounts import Account, AccountStore, Credentials
from .errors import MailError
from .tools import MailService, mail_service, mail_tools

__all__ = ["Account", "AccountStore", "Credentials", "MailError", "MailService", "mail_service", "mail_tools"]
