"""One adapter per chat service, each importing its client library only when a channel of its kind starts."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..model import ChannelConfig
    from .base import Adapter


def make_adapter(config: ChannelConfig, token: str) -> Adapter:
    """The adapter for ``config``'s kind (its library imported here, on first use)."""
    from ..model import ChannelError

    if config.kind == "telegram":
        from .telegram import TelegramAdapter

        return TelegramAdapter(config, token)
    if config.kind == "slack":
        from .slack import SlackAdapter

        return SlackAdapter(config, token)
    if config.kind == "discord":
        from .discord import DiscordAdapter

        return DiscordAdapter(config, token)
    if config.kind == "whatsapp":
        from .whatsapp import WhatsAppAdapter

        return WhatsAppAdapter(config, token)
    if config.kind == "webchat":
        from .webchat import WebChatAdapter

        return WebChatAdapter(config)
    raise ChannelError(f"the {config.kind} adapter is not built yet")
