"""The window an agent's model reads, from the catalog and Settings (a local model's size is the user's)."""

from __future__ import annotations

from ..config.settings import Settings
from ..providers.catalog import CATALOG, window_of


def window_tokens(provider: str, model: str, settings: Settings) -> int:
    info = CATALOG.get(provider)
    local = bool(info is not None and info.key_optional_with_base_url and settings.base_urls.get(provider))
    return window_of(provider, model, local=local, user_set=settings.context_window).context
