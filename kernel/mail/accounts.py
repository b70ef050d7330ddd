"""Mail and calendar accounts: server settings in accounts.json, passwords in the secret store.

An account names one IMAP server (reading, and the Sent folder), one SMTP
submission server (sending) and optionally one CalDAV URL (calendars), with
one user name and password (an app password for Gmail, Google Calendar,
Fastmail and iCloud). The settings file holds no secret; the password goes to
``kernel.config.secrets`` (system keyring, else owner-only keys.json). Everything
read back from accounts.json is checked: a hand-edited file gives a clear
ConfigError, never a crash.
"""

from __future__ import annotations

import json
import typing
import re
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..config.private import make_home, write_private
from ..core.errors import ConfigError

if TYPE_CHECKING:
    from ..config.secrets import SecretStore

ACCOUNTS_FILE = "accounts.json"
ACCOUNT_SECRET_PREFIX = "account:"  # an account's password is kept as "account:<name>" in the secret store
Tls = Literal["ssl", "starttls", "none"]
TLS_MODES = ("ssl", "starttls", "none")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
HOST_RE = re.compile(r"^[A-Za-z0-9.:_-]{1,253}$")


@dataclass(frozen=True)
class Account:
    name: str
    address: str                 # the From address
    user: str
    imap_host: str
    imap_port: int = 993
    imap_tls: Tls = "ssl"
    smtp_host: str = ""
    smtp_port: int = 465
    smtp_tls: Tls = "ssl"
    caldav_url: str = ""
    sent_folder: str = "Sent"
    server_files_sent: bool = False  # Gmail files SMTP sends in Sent itself: no APPEND

    def check(self) -> None:
        """ConfigError naming the first bad field."""
        if not NAME_RE.match(self.name):
            raise ConfigError(f"account name {self.name!r}: use 1-40 letters, digits, '.', '_' or '-'",
                              file=ACCOUNTS_FILE, field="name")
        if "@" not in self.address or any(c in self.address for c in "\r\n<>, "):
            raise ConfigError(f"account {self.name}: the address must look like name@example.com",
                              file=ACCOUNTS_FILE, field="address")
        if not self.user or any(c in self.user for c in "\r\n"):
            raise ConfigError(f"account {self.name}: a user name is needed", file=ACCOUNTS_FILE, field="user")
        for host_field in ("imap_host", "smtp_host"):
            host = getattr(self, host_field)
            if not HOST_RE.match(host):
                raise ConfigError(f"account {self.name}: {host_field} must be a host name like imap.example.com",
                                  file=ACCOUNTS_FILE, field=host_field)
        for port_field in ("imap_port", "smtp_port"):
            port = getattr(self, port_field)
            if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
                raise ConfigError(f"account {self.name}: {port_field} must be a port number (1-65535)",
                                  file=ACCOUNTS_FILE, field=port_field)
        for tls_field in ("imap_tls", "smtp_tls"):
            if getattr(self, tls_field) not in TLS_MODES:
                raise ConfigError(f"account {self.name}: {tls_field} must be one of {', '.join(TLS_MODES)}",
                                  file=ACCOUNTS_FILE, field=tls_field)
        if self.caldav_url and not re.match(r"^https?://[^\s]+$", self.caldav_url):
            raise ConfigError(f"account {self.name}: the CalDAV URL must start with https://",
                              file=ACCOUNTS_FILE, field="caldav_url")
        if not self.sent_folder or any(c in self.sent_folder for c in '\r\n"'):
            raise ConfigError(f"account {self.name}: bad Sent folder name", file=ACCOUNTS_FILE, field="sent_folder")

    @classmethod
    def from_json(cls, data: Any) -> "Account":
        if not isinstance(data, dict):
            raise ConfigError(f"{ACCOUNTS_FILE}: each account must be a JSON object", file=ACCOUNTS_FILE)
        known = {f.name for f in fields(cls)}
        try:
            account = cls(**{k: v for k, v in data.items() if k in known})
        except TypeError:
            raise ConfigError(f"{ACCOUNTS_FILE}: an account lacks name, address, user or imap_host",
                              file=ACCOUNTS_FILE) from None
        account.check()
        return account


@dataclass(frozen=True)
class Credentials:
    account: Account
    password: str

    def __repr__(self) -> str:  # never print the password
        return f"Credentials({self.account.name!r}, password=***)"


class AccountStore:
    """The accounts under one home folder."""

    def __init__(self, root: Path, secrets: "SecretStore") -> None:
        self.root = Path(root)
        self.secrets = secrets

    @property
    def path(self) -> Path:
        return self.root / ACCOUNTS_FILE

    def list(self) -> list[Account]:
        if not self.path.exists():
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{ACCOUNTS_FILE} is not readable JSON ({type(exc).__name__})",
                              file=ACCOUNTS_FILE) from None
        if not isinstance(data, list):
            raise ConfigError(f"{ACCOUNTS_FILE} must hold a list of accounts", file=ACCOUNTS_FILE)
        return [Account.from_json(item) for item in data]

    def get(self, name: str | None = None) -> Account:
        """The named account, or the first one (ConfigError when there is none)."""
        accounts = self.list()
        if not accounts:
            raise ConfigError("no mail account is set up (Settings → Accounts, or `agentdesk account add`)")
        if name is None:
            return accounts[0]
        for account in accounts:
            if account.name == name:
                return account
        raise ConfigError(f"no account named {name!r}; accounts: {', '.join(a.name for a in accounts)}")

    def credentials(self, name: str | None = None) -> Credentials:
        account = self.get(name)
        password = self.secrets.get(account_secret_name(account.name))
        if not password:
            raise ConfigError(f"account {account.name} has no password saved; add it again")
        return Credentials(account, password)

    def save(self, account: Account, password: str | None) -> None:
        """Add or replace ``account`` (and its password, when given)."""
        account.check()
        accounts = [a for a in self.list() if a.name != account.name] + [account]
        if password:
            self.secrets.set(account_secret_name(account.name), password)
        self._write(accounts)

    def remove(self, name: str) -> bool:
        accounts = self.list()
        kept = [a for a in accounts if a.name != name]
        if len(kept) == len(accounts):
            return False
        self._write(kept)
        self.secrets.delete(account_secret_name(name))
        return True

    def held_passwords(self) -> "typing.List[str]":
        """Every account password held, for the ledger's redactor (the mail room names its own secrets:
        the secret store never enumerates accounts)."""
        passwords = (self.secrets.get(account_secret_name(account.name)) for account in self.list())
        return [password for password in passwords if password]

    def _write(self, accounts: "typing.List[Account]") -> None:
        make_home(self.root)
        write_private(self.path, json.dumps([asdict(a) for a in accounts], indent=2))


def account_secret_name(account: str) -> str:
    """The name an account's password is kept under in the secret store."""
    return ACCOUNT_SECRET_PREFIX + account
