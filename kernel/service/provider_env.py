"""Whether the caller of ``agentdesk ask`` means the provider the running kernel would use.

The kernel reads a provider's key and base URL when it starts (its environment, then Settings and the
saved keys); an ``ask`` handed to it runs with those, whatever the caller's environment says. So
``OPENAI_BASE_URL=http://127.0.0.1:11434/v1 agentdesk ask --provider openai-chat`` would silently reach
another server. The kernel's status carries, per provider, a keyed hash of the key and the base URL it uses
(a fresh random salt per reply: nothing a reader could compare across replies, and never the values), and
``ask`` refuses, naming the variable, when the caller's environment sets one that differs.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from typing import Any, Callable, Mapping

from ..core.errors import ConfigError
from ..providers.catalog import CATALOG

SALT_BYTES = 16


def fingerprint(salt: bytes, value: str | None) -> str | None:
    return None if not value else hmac.new(salt, value.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def kernel_side(key_of: Callable[[str], str | None], base_url_of: Callable[[str], str | None]) -> dict[str, Any]:
    """What the kernel's status says: a salt, and per provider the fingerprints of its key and base URL."""
    salt = os.urandom(SALT_BYTES)
    out: dict[str, Any] = {}
    for name in CATALOG:
        try:
            key = key_of(name)
        except ConfigError:  # an unreadable keys.json: that provider has no usable key
            key = None
        out[name] = {"key": fingerprint(salt, key), "base_url": fingerprint(salt, base_url_of(name))}
    return {"salt": salt.hex(), "providers": out}


def variables_set(provider: str, env: Mapping[str, str]) -> list[str]:
    """The caller's variables that choose ``provider``'s key or base URL (the key's first set one)."""
    info = CATALOG[provider]
    found = [next((v for v in info.key_variables if env.get(v)), "")]
    found.append(info.base_url_variable if env.get(info.base_url_variable) else "")
    return [v for v in found if v]


def check(provider: str, env: Mapping[str, str], status: Any) -> None:
    """ConfigError naming each variable of the caller's that differs from what the kernel uses for
    ``provider`` (its value never said); the kernel's reply is hostile data, checked first."""
    info = CATALOG[provider]
    said = status.get("provider_env") if isinstance(status, dict) else None
    salt_hex = said.get("salt") if isinstance(said, dict) else None
    entry = said.get("providers", {}).get(provider) if isinstance(said, dict) and \
        isinstance(said.get("providers"), dict) else None
    if not isinstance(salt_hex, str) or not isinstance(entry, dict):
        raise ConfigError("the running kernel does not say which provider settings it uses, so your provider "
                          f"environment cannot be checked: stop it ('agentdesk kernel --stop') to run {provider} "
                          "with your environment")
    try:
        salt = bytes.fromhex(salt_hex)
    except ValueError:
        raise ConfigError("the running kernel sent an unreadable provider check") from None
    differ = []
    for variable in variables_set(provider, env):
        field = "base_url" if variable == info.base_url_variable else "key"
        theirs = entry.get(field)
        if not (isinstance(theirs, str) and hmac.compare_digest(theirs, fingerprint(salt, env[variable]) or "")):
            what = "base URL" if field == "base_url" else "API key"
            differ.append(f"{variable} is set here, but the running kernel uses "
                          f"{'another' if theirs else 'no'} {what} for {provider}")
    if differ:
        raise ConfigError(f"{'; '.join(differ)} (it read them when it started). Stop the kernel "
                          "('agentdesk kernel --stop') and ask again to run here with your environment, or start "
                          "the kernel with it", variables_set(provider, env)[0])
