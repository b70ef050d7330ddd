"""Mail for a home folder: the service when an account is set up (else no mail tools at all), and the
move of keys.json secrets into the system keyring when one has become usable (homes with an account)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.errors import ConfigError
from ..config.secrets import SecretStore
from ..config.settings import SettingsStore
from .accounts import ACCOUNTS_FILE, AccountStore

if TYPE_CHECKING:
    from .tools import MailService


def mail_for_home(store: SettingsStore) -> MailService | None:
    """The mail service when the home has an account, else None (and nothing imported: probing the
    keyring costs 100-950 ms, measured 2026-12-01, so a home without accounts never pays for it)."""
    if not (store.root / ACCOUNTS_FILE).exists():
        return None
    secrets = SecretStore(store)
    try:
        secrets.migrate_to_keyring()  # provider keys and account passwords alike
    except Exception:  # noqa: BLE001 - a keyring that fails mid-way leaves keys.json as it was: still works
        pass
    accounts = AccountStore(store.root, secrets)
    try:
        has_account = bool(accounts.list())
    except ConfigError:
        return None  # a broken accounts.json: `agentdesk account list` says why
    if not has_account:
        return None
    from .tools import MailService  # lazy: the clients load only for a home with an account

    return MailService(accounts)


def held_account_secrets(store: SettingsStore) -> list[tuple[str, str]]:
    """Every mail account password, as (where, value), for the ledger's redactor; nothing (and no keyring
    probe) for a home without accounts; never raises."""
    if not (store.root / ACCOUNTS_FILE).exists():
        return []
    try:
        passwords = AccountStore(store.root, SecretStore(store)).held_passwords()
        return [("a mail account's password", value) for value in passwords]
    except Exception:  # noqa: BLE001 - a broken accounts.json or keyring: `agentdesk account list` says why
        return []
