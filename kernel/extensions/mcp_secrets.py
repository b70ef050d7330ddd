"""MCP servers' secrets where provider keys live: the system keyring, or the owner-only keys.json.

Each server's secret environment values and headers are one entry, ``mcp:<server>``, holding them
as JSON, in ``kernel.config.secrets`` (the keyring when one is usable, else keys.json, mode 0600). An
older home kept them in a separate ``mcp_keys.json``; the first time the store is used that file is
moved over one server at a time: copied, read back, and only then dropped from the old file, which
is deleted once empty, so an interruption at any point loses nothing (the next use goes on where
it stopped) and nothing that moved is left behind in it. A secret's value is never in a message.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping

from ..core.errors import ConfigError
from ..config.private import write_private
from ..config.settings import _read_json
from .mcp_oauth import vault_name

if TYPE_CHECKING:
    from ..config.secrets import SecretStore

LEGACY_FILE = "mcp_keys.json"
PREFIX = "mcp:"
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$")
_EMPTY: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True)
class McpSecrets:
    """Secret environment values and headers of one server (never shown, never recorded)."""

    env: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    headers: Mapping[str, str] = field(default_factory=lambda: _EMPTY)

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self.env)) + tuple(sorted(self.headers))

    def values(self) -> list[tuple[str, str]]:
        """(what, value) for every secret, for the ledger's redactor (a header's token on its own too:
        ``Bearer <token>`` may be quoted without its scheme)."""
        out = [(f"secret env {k}", v) for k, v in self.env.items()]
        for key, value in self.headers.items():
            out.append((f"secret header {key}", value))
            scheme, _sep, token = value.strip().partition(" ")
            if token.strip() and scheme:
                out.append((f"secret header {key} token", token.strip()))
        return out

    def to_json(self) -> str:
        return json.dumps({"env": dict(self.env), "headers": dict(self.headers)}, separators=(",", ":"))


def string_map(value: Any, key_re: re.Pattern[str], what: str, header: bool) -> dict[str, str] | str:
    """A checked {name: text} mapping, or the sentence saying what is wrong with it."""
    if value is None:
        return {}
    if not isinstance(value, dict) or len(value) > 128:
        return f"{what} must be an object of at most 128 names and text values"
    out: dict[str, str] = {}
    for key, item in value.items():
        if not key_re.match(key):
            return f"{what} has a bad name {json.dumps(key)[:60]}"
        if not isinstance(item, str) or len(item) > 8192 or "\x00" in item or (header and ("\r" in item or "\n" in item)):
            return f"{what} {key} must be text on one line"
        out[key] = item
    return out


def parse_secrets(entry: Any) -> McpSecrets:
    """One server's secrets from their stored form (nothing usable: empty)."""
    if isinstance(entry, str):
        try:
            entry = json.loads(entry)
        except ValueError:
            return McpSecrets()
    if not isinstance(entry, dict):
        return McpSecrets()
    env = string_map(entry.get("env"), ENV_NAME, "env", header=False)
    headers = string_map(entry.get("headers"), HEADER_NAME, "headers", header=True)
    return McpSecrets(MappingProxyType(env if isinstance(env, dict) else {}),
                      MappingProxyType(headers if isinstance(headers, dict) else {}))


def secret_name(server: str) -> str:
    return PREFIX + server


class McpSecretBook:
    """Reads, writes and forgets servers' secrets in the secret store; moves an old mcp_keys.json over."""

    def __init__(self, root: Path, store: "SecretStore | None" = None) -> None:
        self.root = root
        self._store = store
        self.problem: ConfigError | None = None  # why the old file could not be moved (it is kept)

    @property
    def legacy_path(self) -> Path:
        return self.root / LEGACY_FILE

    @property
    def store(self) -> "SecretStore":
        if self._store is None:  # the keyring is probed only when a secret is wanted
            from ..config.secrets import SecretStore
            from ..config.settings import SettingsStore

            self._store = SecretStore(SettingsStore(self.root))
        return self._store

    @property
    def where(self) -> str:
        return self.store.where

    def get(self, server: str) -> McpSecrets:
        self.migrate()
        try:
            found = parse_secrets(self.store.get(secret_name(server)))
        except (ConfigError, OSError):  # an unreadable keys.json: `agentdesk mcp list` says why
            found = McpSecrets()
        if not (found.env or found.headers) and self.legacy_path.exists():
            found = self._legacy(server)
        return found

    def set(self, server: str, secrets: McpSecrets) -> None:
        """Keep ``secrets`` for ``server`` (none: forget them); ConfigError when the store refuses."""
        self.migrate()
        if not (secrets.env or secrets.headers):
            self.forget(server)
            return
        try:
            self.store.set(secret_name(server), secrets.to_json())
        except ConfigError:
            raise
        except Exception as exc:  # noqa: BLE001 - a locked keyring, a full disk: said, never half-saved
            raise ConfigError(f"the secrets of MCP server {server!r} could not be saved in the "
                              f"{self.store.where}: {type(exc).__name__}", server) from None

    def forget(self, server: str) -> None:
        self.migrate()
        try:
            self.store.delete(secret_name(server))
            self.store.delete(vault_name(server))  # its sign-in too: tokens, registration, client credentials
            self._drop_legacy(server)
        except Exception as exc:  # noqa: BLE001
            raise ConfigError(f"the secrets of MCP server {server!r} could not be removed from the "
                              f"{self.store.where}: {type(exc).__name__}", server) from None

    def migrate(self) -> list[str]:
        """Move every server of an old mcp_keys.json into the secret store; the servers moved."""
        path = self.legacy_path
        if not path.exists():
            return []
        try:
            data = _read_json(path, LEGACY_FILE)
        except ConfigError as exc:
            self.problem = ConfigError(f"{LEGACY_FILE} could not be moved to the {self.store.where} and is kept "
                                       f"as it is: {exc}", LEGACY_FILE, file=LEGACY_FILE)
            return []
        legacy = dict(data) if isinstance(data, dict) else {}
        moved: list[str] = []
        kept: list[str] = []
        for server, entry in list(legacy.items()):
            secrets = parse_secrets(entry)
            if not (secrets.env or secrets.headers) and entry not in ({}, {"env": {}, "headers": {}}):
                kept.append(str(server)[:40])  # unreadable as secrets: never used, never thrown away either
                continue
            try:
                if secrets.env or secrets.headers:
                    name, value = secret_name(str(server)), secrets.to_json()
                    self.store.set(name, value)
                    if self.store.get(name) != value:
                        raise ConfigError("the value read back differs", name)
                legacy.pop(server)
                write_private(path, json.dumps(legacy, indent=2))
            except Exception as exc:  # noqa: BLE001 - stop here, keep the rest where it is: tried again next time
                self.problem = ConfigError(f"{LEGACY_FILE}: the secrets of {str(server)[:40]!r} could not be moved "
                                           f"to the {self.store.where} ({type(exc).__name__}); they stay in "
                                           f"{LEGACY_FILE} until they can", LEGACY_FILE, file=LEGACY_FILE)
                return moved
            moved.append(str(server))
        if not legacy:
            os.unlink(path)
        self.problem = None if not kept else ConfigError(
            f"{LEGACY_FILE}: the entries for {', '.join(kept)} are not secrets this version can read; they are "
            f"kept there, unused", LEGACY_FILE, file=LEGACY_FILE)
        return moved

    def _drop_legacy(self, server: str) -> None:
        """A server forgotten while its old entry could not be moved: the entry goes too."""
        if not self.legacy_path.exists():
            return
        data = _read_json(self.legacy_path, LEGACY_FILE)
        if isinstance(data, dict) and data.pop(server, None) is not None:
            write_private(self.legacy_path, json.dumps(data, indent=2))

    def _legacy(self, server: str) -> McpSecrets:
        """What a not-yet-moved mcp_keys.json holds for ``server`` (its move failed: still used meanwhile)."""
        try:
            data = _read_json(self.legacy_path, LEGACY_FILE)
        except ConfigError:
            return McpSecrets()
        return parse_secrets(data.get(server)) if isinstance(data, dict) else McpSecrets()
