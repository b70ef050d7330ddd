"""A reply on its way to a chat: streamed by editing one message where the channel allows, whole otherwise.

Text deltas arrive on the kernel's event bus; the streamer edits the chat
message only after ``EVERY`` new characters (a Telegram bot may edit a
message about once a second; this keeps a fast model well under that without
a timer), then puts the final reply in place, split at the channel's limit.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from .replies import split

if TYPE_CHECKING:
    from .adapters.base import Adapter

EVERY = 400


class Streamer:
    def __init__(self, adapter: Adapter, chat: str, limit: int, edits: bool) -> None:
        self._adapter = adapter
        self._chat = chat
        self._limit = limit
        self._edits = edits
        self._text = ""
        self._shown = 0
        self._message: str | None = None
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()

    def delta(self, text: str) -> None:
        """Called from the event bus for each piece of the reply."""
        self._text += text
        if self._edits and len(self._text) - self._shown >= EVERY and len(self._text) <= self._limit:
            task = asyncio.ensure_future(self._show(self._text))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _show(self, text: str) -> None:
        async with self._lock:
            if len(text) <= self._shown:
                return
            self._shown = len(text)
            if self._message is None:
                self._message = await self._adapter.send(self._chat, text + " …")
            else:
                await self._adapter.edit(self._chat, self._message, text + " …")

    async def finish(self, final: str) -> list[str]:
        """The whole reply in place: the streamed message edited to its first piece, the rest sent after."""
        if self._tasks:
            await asyncio.wait(set(self._tasks))
        parts = split(final, self._limit)
        async with self._lock:
            first = parts[0]
            if self._message is not None:
                await self._adapter.edit(self._chat, self._message, first)
            else:
                self._message = await self._adapter.send(self._chat, first)
            for part in parts[1:]:
                await self._adapter.send(self._chat, part)
        return parts
