"""Secrets (account passwords, provider keys): the system keyring when one is usable, else keys.json.

The ``keyring`` library finds the platform's store (Secret Service on Linux,
Keychain, Windows Credential Locker). Where none is usable it answers with
its ``fail`` backend (priority 0) or the null one: then secrets stay in the
owner-only ``keys.json`` (mode 0600), as provider keys always have. A store
that appears later takes over through ``migrate_to_keyring``: each entry of
keys.json is copied into the keyring, read back, and only then dropped from
the file, so an interrupted migration loses nothing and keys.json keeps
working throughout. Secrets never enter the ledger: whoever names them (the
mail room its accounts' passwords, ``kernel.mail.accounts``) lists them for
the redaction registry to mask; the store itself never enumerates them. Which names the
keyring holds is noted (names only, no values) in ``keyring.json``, so the
redactor can hold every key kept there without probing the keyring in a home
that never used one (a probe costs 100-950 ms, measured 2026-12-01).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from .private import make_home, write_private


class KeysFile(Protocol):
    """The home's owner-only keys.json, as ``kernel.config.settings.SettingsStore`` keeps it (declared here:
    the settings import this module on first use, never the other way round)."""

    @property
    def root(self) -> Path: ...

    def keys(self) -> dict[str, str]: ...

    def save_key(self, provider: str, key: str | None) -> None: ...

SERVICE = "agentdesk"
KEYRING_INDEX = "keyring.json"  # the names (never the values) kept in the keyring


def keyring_names(root: Path) -> list[str]:
    """The names this home keeps in the keyring (empty when it never used one; never raises)."""
    try:
        data = json.loads((Path(root) / KEYRING_INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return []
    return sorted({n for n in data if isinstance(n, str)}) if isinstance(data, list) else []


def _note_keyring(root: Path, name: str, held: bool) -> None:
    names = set(keyring_names(root))
    if (name in names) == held:
        return
    names = names | {name} if held else names - {name}
    make_home(Path(root))
    write_private(Path(root) / KEYRING_INDEX, json.dumps(sorted(names)))


def keyring_held(root: Path) -> list[tuple[str, str]]:
    """Every secret the keyring holds for this home, as (name, value), for the ledger's redactor (no keyring
    probe when the home never used one; never raises)."""
    names = keyring_names(root)
    out = []
    for name in names:
        value = keyring_secret(name)
        if value:
            out.append((name, value))
    return out


@lru_cache(maxsize=1)
def usable_keyring() -> Any | None:
    """The keyring backend to use, or None when only the fail/null backends are there."""
    if os.environ.get("AGENTDESK_KEYRING") == "off":
        return None
    try:
        import keyring  # lazy: it probes D-Bus and the platform's stores
        backend = keyring.get_keyring()
    except Exception:  # noqa: BLE001 - no usable keyring is a normal state: keys.json takes over
        return None
    if float(getattr(backend, "priority", 0) or 0) <= 0:
        return None
    return backend


def keyring_secret(name: str) -> str | None:
    """``name`` from the keyring, or None (no keyring, not there, or the keyring failed)."""
    backend = usable_keyring()
    if backend is None:
        return None
    try:
        return backend.get_password(SERVICE, name) or None
    except Exception:  # noqa: BLE001 - a locked or broken keyring reads as absent
        return None


class SecretStore:
    """Get, set and delete named secrets; ``where`` says which store holds them."""

    def __init__(self, settings: KeysFile, backend: Any | None = None, use_keyring: bool = True) -> None:
        self.settings = settings
        self.backend = (backend or usable_keyring()) if use_keyring else None

    @property
    def where(self) -> str:
        return "system keyring" if self.backend is not None else "keys.json (owner-only)"

    def get(self, name: str) -> str | None:
        if self.backend is not None:
            try:
                value: str | None = self.backend.get_password(SERVICE, name)
            except Exception:  # noqa: BLE001 - fall back to the file
                value = None
            if value:
                return value
        return self.settings.keys().get(name) or None

    def set(self, name: str, value: str) -> str:
        """Keep ``value`` under ``name``: in the keyring when one is usable (then not in keys.json too),
        else in keys.json. Where it went, in words."""
        if self.backend is not None:
            try:
                self.backend.set_password(SERVICE, name, value)
            except Exception:  # noqa: BLE001 - a locked or broken keyring: the owner-only file keeps it instead
                pass
            else:
                _note_keyring(self.settings.root, name, True)
                if name in self.settings.keys():
                    self.settings.save_key(name, None)
                return "the system keyring"
        self.settings.save_key(name, value)
        return "keys.json"

    def delete(self, name: str) -> None:
        if self.backend is not None:
            try:
                self.backend.delete_password(SERVICE, name)
            except Exception:  # noqa: BLE001 - not there is fine
                pass
            _note_keyring(self.settings.root, name, False)
        if name in self.settings.keys():
            self.settings.save_key(name, None)

    def migrate_to_keyring(self) -> list[str]:
        """Move every keys.json entry into the keyring (copy, read back, then drop); the names moved."""
        if self.backend is None:
            return []
        moved = []
        for name, value in self.settings.keys().items():
            self.backend.set_password(SERVICE, name, value)
            if self.backend.get_password(SERVICE, name) == value:
                _note_keyring(self.settings.root, name, True)
                self.settings.save_key(name, None)
                moved.append(name)
        return moved
