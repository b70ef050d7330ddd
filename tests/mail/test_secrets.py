"""Secrets: keys.json (owner-only) when no keyring is usable, the keyring when one is, and the move
from one to the other keeping provider keys working throughout."""

from __future__ import annotations

import stat

from keyring.backend import KeyringBackend

from kernel.secret_store import SecretStore, usable_keyring
from kernel.settings import SettingsStore


class DictKeyring(KeyringBackend):
    """A real keyring backend (the library's own base class) that keeps its store in a dict."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.store.get((service, username))

    def set_password(self, service, username, password):
        self.store[(service, username)] = password

    def delete_password(self, service, username):
        self.store.pop((service, username), None)


def test_no_usable_keyring_here_means_keys_json_owner_only(agentdesk_home):
    usable_keyring.cache_clear()
    assert usable_keyring() is None  # this machine has only keyring's fail backend (or it is switched off)
    store = SettingsStore(agentdesk_home)
    secrets = SecretStore(store)
    secrets.set("account:work", "app-pass")
    assert secrets.get("account:work") == "app-pass" and secrets.where.startswith("keys.json")
    assert stat.S_IMODE(store.keys_path.stat().st_mode) == 0o600
    store.save_key("anthropic", "sk-ant-1")
    assert store.api_key("anthropic", env={}) == "sk-ant-1"  # provider keys and account secrets live side by side


def test_migration_moves_keys_json_into_the_keyring_and_provider_keys_keep_working(agentdesk_home, monkeypatch):
    store = SettingsStore(agentdesk_home)
    store.save_key("anthropic", "sk-ant-1")
    SecretStore(store, use_keyring=False).set("account:work", "app-pass")
    backend = DictKeyring()
    moved = SecretStore(store, backend=backend).migrate_to_keyring()
    assert sorted(moved) == ["account:work", "anthropic"]
    assert store.keys() == {}
    assert backend.store[("agentdesk", "anthropic")] == "sk-ant-1"
    monkeypatch.setattr("kernel.secret_store.usable_keyring", lambda: backend)
    assert store.api_key("anthropic", env={}) == "sk-ant-1"
    assert store.key_source("anthropic", env={}).where == "keyring"
    assert SecretStore(store, backend=backend).get("account:work") == "app-pass"
