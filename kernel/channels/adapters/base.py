"""What every adapter offers the hub: start with a sink, send, edit, type, download, stop.

An adapter parses what its service sends into ``Inbound`` values and hands
each to ``deliver`` (which claims it and returns at once: the adapter then
acknowledges, and the work happens after); it never decides anything
itself. Everything else it does is what the hub asks, after the gate.
"""

from __future__ import annotations

from typing import Callable, Protocol

from ..model import Inbound

Deliver = Callable[[Inbound], bool]  # True: first arrival, being worked on; False: a redelivery, dropped


class Adapter(Protocol):
    kind: str
    service: str                       # the service's name, for sentences ("Slack")
    max_file_bytes: int                # the largest file send_file takes, the service's own limit for a bot
    account: str                       # the bot's own id on its service ("" until started)
    own_ids: frozenset[str]            # the bot's own sender ids (its own messages are never answered)

    async def start(self, deliver: Deliver) -> None: ...
    async def stop(self) -> None: ...
    async def send(self, chat: str, text: str) -> str: ...   # the new message's id
    async def edit(self, chat: str, message_id: str, text: str) -> None: ...
    async def typing(self, chat: str) -> None: ...
    # a file to the chat (channel_send_file, after the user confirmed it); the message's id. ChannelError
    # when surely nothing reached the chat (a refusal, a malformed answer before the share); anything else
    # raised means it may have (recorded as unknown, never retried)
    async def send_file(self, chat: str, name: str, data: bytes, caption: str) -> str: ...
    async def download(self, media_id: str) -> bytes: ...
    async def check(self) -> str: ...   # who the token is, in words (ChannelError when it does not work)
