"""MCP servers' secrets live where provider keys do (the keyring, or the owner-only keys.json), never in
mcp.json; an older home's mcp_keys.json moves over on first use, losing nothing when interrupted."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from keyring.backend import KeyringBackend

from kernel.extensions.mcp_config import McpSecrets, McpServerConfig, McpStore
from kernel.config.secrets import SecretStore
from kernel.config.settings import SettingsStore

TOKEN = "Bearer sekrit-token-123"


class DictKeyring(KeyringBackend):
    """A real keyring backend (the library's own base class) that keeps its store in a dict;
    ``fail_after`` sets make it refuse from then on (a keyring locked mid-migration)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self, fail_after: int | None = None) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}
        self.fail_after = fail_after

    def get_password(self, service, username):
        return self.store.get((service, username))

    def set_password(self, service, username, password):
        if self.fail_after is not None:
            if self.fail_after <= 0:
                raise RuntimeError("the keyring is locked")
            self.fail_after -= 1
        self.store[(service, username)] = password

    def delete_password(self, service, username):
        self.store.pop((service, username), None)


def _store(root: Path, backend: KeyringBackend | None = None) -> McpStore:
    settings = SettingsStore(root)
    return McpStore(root, SecretStore(settings, backend=backend, use_keyring=backend is not None))


def _legacy(root: Path, data: dict) -> Path:
    path = root / "mcp_keys.json"
    path.write_text(json.dumps(data))
    path.chmod(0o600)
    (root / "mcp.json").write_text(json.dumps({"servers": {name: {"url": "https://example.test/mcp"}
                                                           for name in data}}))
    return path


def test_without_a_keyring_secrets_go_to_the_owner_only_keys_json_beside_provider_keys(tmp_path):
    settings = SettingsStore(tmp_path)
    settings.save_key("anthropic", "sk-ant-1")
    store = _store(tmp_path)
    store.add(McpServerConfig("api", url="https://example.test/mcp", headers={"X-Team": "a"}),
              McpSecrets(headers={"Authorization": TOKEN}))
    assert "sekrit" not in store.path.read_text() and not store.keys_path.exists()
    assert stat.S_IMODE(settings.keys_path.stat().st_mode) == 0o600 and "sekrit" in settings.keys_path.read_text()
    assert store.secrets("api").headers == {"Authorization": TOKEN}
    assert settings.keys()["anthropic"] == "sk-ant-1"  # keys.json still reads as a whole: the new entry fits
    assert settings.api_key("anthropic", env={}) == "sk-ant-1"
    assert store.remove("api") and store.secrets("api") == McpSecrets()
    assert "sekrit" not in settings.keys_path.read_text()


def test_with_a_keyring_secrets_go_there_and_nowhere_else(tmp_path):
    backend = DictKeyring()
    store = _store(tmp_path, backend)
    store.add(McpServerConfig("git", command="mcp-server-git"), McpSecrets(env={"GIT_TOKEN": "tok-1234567"}))
    assert json.loads(backend.store[("agentdesk", "mcp:git")])["env"] == {"GIT_TOKEN": "tok-1234567"}
    assert not SettingsStore(tmp_path).keys_path.exists() and "tok-" not in store.path.read_text()
    assert store.secrets("git").names() == ("GIT_TOKEN",)
    store.add(McpServerConfig("git", command="mcp-server-git"))  # replaced without secrets: they are forgotten
    assert ("agentdesk", "mcp:git") not in backend.store


@pytest.mark.parametrize("keyring", [False, True])
def test_an_old_mcp_keys_json_moves_over_on_first_load_and_is_gone(tmp_path, keyring):
    legacy = _legacy(tmp_path, {"api": {"headers": {"Authorization": TOKEN}}, "git": {"env": {"T": "v-123456789"}}})
    backend = DictKeyring() if keyring else None
    store = _store(tmp_path, backend)
    loaded = store.load()
    assert [s.name for s in loaded.servers] == ["api", "git"] and loaded.problems == ()
    assert not legacy.exists()  # nothing that moved is left behind
    assert store.secrets("api").headers == {"Authorization": TOKEN} and store.secrets("git").env == {"T": "v-123456789"}
    keys_json = SettingsStore(tmp_path).keys_path
    if keyring:
        assert not keys_json.exists() and set(backend.store) == {("agentdesk", "mcp:api"), ("agentdesk", "mcp:git")}
    else:
        assert stat.S_IMODE(keys_json.stat().st_mode) == 0o600 and set(json.loads(keys_json.read_text())) == \
            {"mcp:api", "mcp:git"}


def test_a_keyring_locked_mid_migration_keeps_the_rest_in_keys_json(tmp_path):
    legacy = _legacy(tmp_path, {"api": {"headers": {"Authorization": TOKEN}}, "git": {"env": {"T": "v-123456789"}}})
    backend = DictKeyring(fail_after=1)  # the keyring locks after the first server moved
    store = _store(tmp_path, backend)
    loaded = store.load()
    assert [s.name for s in loaded.servers] == ["api", "git"] and loaded.problems == ()
    assert not legacy.exists()
    assert set(backend.store) == {("agentdesk", "mcp:api")}  # the second went to the owner-only file instead
    assert set(json.loads(SettingsStore(tmp_path).keys_path.read_text())) == {"mcp:git"}
    assert store.secrets("api").headers == {"Authorization": TOKEN}
    assert store.secrets("git").env == {"T": "v-123456789"}


def test_an_interrupted_migration_loses_nothing_and_finishes_later(tmp_path):
    legacy = _legacy(tmp_path, {"api": {"headers": {"Authorization": TOKEN}}, "git": {"env": {"T": "v-123456789"}}})
    backend = DictKeyring(fail_after=0)  # the keyring is locked ...
    keys_json = SettingsStore(tmp_path).keys_path
    keys_json.mkdir()  # ... and keys.json cannot be read or written either: nothing can move yet
    store = _store(tmp_path, backend)
    loaded = store.load()
    assert [s.name for s in loaded.servers] == ["api", "git"]
    [problem] = loaded.problems
    assert "could not be moved" in problem.message and "sekrit" not in problem.message
    left = json.loads(legacy.read_text())
    assert set(left) == {"api", "git"} and stat.S_IMODE(legacy.stat().st_mode) == 0o600  # nothing lost
    assert store.secrets("api").headers == {"Authorization": TOKEN}
    assert store.secrets("git").env == {"T": "v-123456789"}  # still used from the old file meanwhile
    keys_json.rmdir()
    backend.fail_after = None  # unlocked: the next use goes on where it stopped
    assert store.load().problems == () and not legacy.exists()
    assert store.secrets("git").env == {"T": "v-123456789"}


def test_an_unreadable_old_file_is_kept_and_said(tmp_path):
    (tmp_path / "mcp_keys.json").write_text("{not json")
    loaded = _store(tmp_path).load()
    assert (tmp_path / "mcp_keys.json").read_text() == "{not json"
    assert any("mcp_keys.json could not be moved" in p.message for p in loaded.problems)


def test_a_header_token_is_held_alone_too():
    values = [v for _, v in McpSecrets(env={"A": "x-1234567"}, headers={"Authorization": TOKEN}).values()]
    assert values == ["x-1234567", TOKEN, "sekrit-token-123"]
