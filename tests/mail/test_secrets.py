"""Secrets: keys.json (owner-only) when no keyring is usable, the keyring when one is, and the move
from one to the other keeping provider keys working throughout."""

from __future__ import annotations

import stat

from keyring.backend import KeyringBackend

from kernel.config.secrets import SecretStore, usable_keyring
from kernel.config.settings import SettingsStore
from kernel.mail.accounts import Account, AccountStore, account_secret_name
from kernel.mail.wiring import held_account_secrets


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
    monkeypatch.setattr("kernel.config.secrets.usable_keyring", lambda: backend)
    assert store.api_key("anthropic", env={}) == "sk-ant-1"
    assert store.key_source("anthropic", env={}).where == "keyring"
    assert SecretStore(store, backend=backend).get("account:work") == "app-pass"


def test_new_provider_and_web_keys_go_to_the_keyring_when_usable_and_settings_says_where(
        agentdesk_home, monkeypatch):
    from desktop.settings_form import key_source_text

    backend = DictKeyring()
    monkeypatch.setattr("kernel.config.secrets.usable_keyring", lambda: backend)
    store = SettingsStore(agentdesk_home)
    assert store.save_secret_key("anthropic", "sk-ant-new-1234567890") == "the system keyring"
    assert store.save_secret_key("brave", "brave-key-1234567890") == "the system keyring"
    assert store.keys() == {}  # nothing in keys.json
    assert backend.store[("agentdesk", "anthropic")] == "sk-ant-new-1234567890"
    assert store.keyring_names() == ["anthropic", "brave"]  # names only, no values, in keyring.json
    assert "sk-ant" not in (agentdesk_home / "keyring.json").read_text()
    assert store.api_key("anthropic", env={}) == "sk-ant-new-1234567890"
    assert store.web_key("brave", env={}) == "brave-key-1234567890"
    source = store.key_source("anthropic", env={})
    text = key_source_text("anthropic", source, False)
    assert source.where == "keyring" and "system keyring" in text and "sk-ant" not in text
    held = dict((value, where) for where, value in store.held_secrets())  # the ledger's redactor holds them
    assert held["sk-ant-new-1234567890"] == "keyring anthropic" and "brave-key-1234567890" in held
    env_text = key_source_text("anthropic", store.key_source("anthropic", env={"ANTHROPIC_API_KEY": "e"}), False)
    assert "environment" in env_text
    store.save_secret_key("anthropic", None)  # forget
    assert ("agentdesk", "anthropic") not in backend.store and store.keyring_names() == ["brave"]
    assert store.api_key("anthropic", env={}) is None


def test_without_a_keyring_new_keys_go_to_keys_json_and_no_keyring_is_probed(agentdesk_home, monkeypatch):
    def no_probe():
        raise AssertionError("the keyring was probed in a home that never used one")

    store = SettingsStore(agentdesk_home)
    assert store.held_secrets() == []
    monkeypatch.setattr("kernel.config.secrets.usable_keyring", lambda: None)
    assert store.save_secret_key("openai", "sk-openai-1234567890") == "keys.json"
    assert store.keys() == {"openai": "sk-openai-1234567890"} and store.keyring_names() == []
    assert stat.S_IMODE(store.keys_path.stat().st_mode) == 0o600
    monkeypatch.setattr("kernel.config.secrets.usable_keyring", no_probe)
    assert store.held_secrets() == [("keys.json openai", "sk-openai-1234567890")]
    assert store.web_key("brave", env={}) is None


def test_the_settings_dialog_saves_a_new_key_to_the_keyring(agentdesk_home, tmp_path, monkeypatch, qtbot):
    from desktop.settings_dialog import SettingsDialog
    from kernel.config.settings import Settings

    backend = DictKeyring()
    monkeypatch.setattr("kernel.config.secrets.usable_keyring", lambda: backend)
    store = SettingsStore(agentdesk_home)
    dialog = SettingsDialog(store, Settings(user_name="Ada", workspace=str(tmp_path)), None, env={})
    qtbot.addWidget(dialog)
    dialog.provider_tabs["anthropic"].key.setText("sk-ant-typed-1234567890")
    assert dialog.save()
    assert backend.store[("agentdesk", "anthropic")] == "sk-ant-typed-1234567890" and store.keys() == {}
    again = SettingsDialog(store, Settings(user_name="Ada", workspace=str(tmp_path)), None, env={})
    qtbot.addWidget(again)
    tab = again.provider_tabs["anthropic"]
    assert "system keyring" in tab.source.text() and "sk-ant" not in tab.source.text()
    assert tab.key.placeholderText() == "a key is saved; type to replace it"  # known as saved, can be forgotten


def test_agentdesk_key_reads_the_key_from_stdin_and_lists_where_keys_come_from(agentdesk_home):
    import os
    import subprocess
    import sys

    from tests.cli.test_ask import ROOT

    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "OPENAI", "GEMINI", "GOOGLE"))}
    env.update({"AGENTDESK_HOME": str(agentdesk_home), "PYTHONPATH": str(ROOT), "AGENTDESK_KEYRING": "off",
                "OPENAI_API_KEY": "sk-env-key"})

    def agentdesk(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "desktop.launcher", *args], env=env, input=stdin,
                              capture_output=True, text=True, timeout=60, cwd=ROOT)

    saved = agentdesk("key", "set", "anthropic", stdin="sk-ant-cli-1234567890\n")
    assert saved.returncode == 0, saved.stderr
    assert "keys.json" in saved.stdout and "sk-ant" not in saved.stdout + saved.stderr  # no keyring here
    assert SettingsStore(agentdesk_home).keys() == {"anthropic": "sk-ant-cli-1234567890"}
    listed = agentdesk("key", "list").stdout
    assert "anthropic\tkeys.json" in listed and "openai\tenvironment (OPENAI_API_KEY)" in listed
    assert "sk-" not in listed
    assert agentdesk("key", "set", "anthropic", stdin="").returncode == 2  # no key given: nothing saved
    assert agentdesk("key", "rm", "anthropic").returncode == 0
    assert SettingsStore(agentdesk_home).keys() == {}


def test_a_keyring_that_refuses_to_store_leaves_the_key_in_keys_json(agentdesk_home, monkeypatch):
    class LockedKeyring(DictKeyring):
        def set_password(self, service, username, password):
            from keyring.errors import PasswordSetError

            raise PasswordSetError("the keyring is locked")

    monkeypatch.setattr("kernel.config.secrets.usable_keyring", lambda: LockedKeyring())
    store = SettingsStore(agentdesk_home)
    assert store.save_secret_key("anthropic", "sk-ant-locked-1234567890") == "keys.json"
    assert store.keys() == {"anthropic": "sk-ant-locked-1234567890"} and store.keyring_names() == []
    assert store.key_source("anthropic", env={}).where == "keys.json"


def test_the_mail_room_names_its_account_passwords_for_the_redactor(agentdesk_home):
    """The secret store never enumerates accounts: the mail room lists the passwords it keeps there."""
    store = SettingsStore(agentdesk_home)
    assert held_account_secrets(store) == []  # no accounts.json: nothing to hold (and no keyring asked)
    backend = DictKeyring()
    accounts = AccountStore(agentdesk_home, SecretStore(store, backend=backend))
    server = {"user": "me", "imap_host": "127.0.0.1", "smtp_host": "127.0.0.1"}
    accounts.save(Account(name="work", address="me@example.org", **server), "app-pass-1")
    accounts.save(Account(name="spare", address="spare@example.org", **server), None)  # no password kept
    SecretStore(store, use_keyring=False).set("anthropic", "sk-ant-not-an-account")  # a provider key: not theirs

    assert backend.store == {("agentdesk", account_secret_name("work")): "app-pass-1"}
    assert accounts.held_passwords() == ["app-pass-1"]
    assert held_account_secrets(store) == []  # AGENTDESK_KEYRING=off: the keyring holding it is not asked
    SecretStore(store, use_keyring=False).set(account_secret_name("spare"), "app-pass-2")  # keys.json this time
    assert held_account_secrets(store) == [("a mail account's password", "app-pass-2")]
