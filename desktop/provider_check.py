"""Is an agent's provider usable? Answered before sending, so a missing key is a sentence, not a crash.

A provider the kernel knows needs an API key (environment variable or
keys.json) unless a base URL points it at a local server. A provider the
Settings do not list (a scripted one in tests and demos) needs nothing.
"""

from __future__ import annotations

from kernel import SettingsStore
from kernel.api import KEY_VARIABLES, ConfigError, Settings


def missing_key_message(provider: str, store: SettingsStore) -> str | None:
    """Why ``provider`` cannot be used yet, in words, or None when it can."""
    if provider not in KEY_VARIABLES:
        return None
    try:
        if store.api_key(provider) is not None:
            return None
    except ConfigError as exc:  # keys.json holds something else than keys: say so, never crash
        return f"{exc.message}. Fix it in Settings, or set {KEY_VARIABLES[provider]} in the environment."
    try:
        settings = store.load()
    except ConfigError:
        settings = Settings()
    if store.base_url(provider, settings) is not None:
        return None
    return (f"No API key is set for {provider}. Add one in Settings, or set {KEY_VARIABLES[provider]} "
            "in the environment; until then this agent cannot answer.")
