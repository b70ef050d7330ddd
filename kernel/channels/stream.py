"""A reply on its way to a chat: streamed by editing one message where the channel allows, whole otherwise.

Text deltas arrive on the kernel's event bus. The streamer shows the reply so
far when at least ``EVERY`` new characters have come and at least the
channel's edit interval (``model.EDIT_EVERY_S``: Telegram about one edit a
second per chat, Slack's chat.update about 50 a minute, Discord 5 per 5 s per
channel) has passed on the kernel clock since the last edit, so a fast model
never runs into a service's rate limit: a 9,000-character reply in 30 pieces
over 7.5 s makes at most 8 edits on Discord, not 30. Then the final reply is
put in place whole (the streamed message edited to its first piece, with no
"…"), and the rest is sent after it, split at the channel's limit.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Callable

from .replies import split

if TYPE_CHECKING:
    from .adapters.base import Adapter

EVERY = 400
MORE = " …"


class Streamer:
    def __init__(self, adapter: Adapter, chat: str, limit: int, every_s: float | None,
                 now: Callable[[], float]) -> None:
        """``every_s``: the least time between two edits (None: this channel cannot edit; the reply comes whole)."""
        self._adapter = adapter
        self._chat = chat
        self._limit = limit
        self._every_s = every_s
        self._now = now
        self._text = ""
        self._shown = 0
        self._last: float | None = None  # when the streamed message was last sent or edited
        self._message: str | None = None
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self.edits = 0  # interim edits made (a figure for tests)

    def delta(self, text: str) -> None:
        """Called from the event bus for each piece of the reply."""
        self._text += text
        if self._every_s is None or len(self._text) - self._shown < EVERY or len(self._text) + len(MORE) > self._limit:
            return
        now = self._now()
        if self._last is not None and now - self._last < self._every_s:
            return  # too soon after the last edit: the next piece (or the final reply) shows this text
        self._last = now
        self._shown = len(self._text)
        task = asyncio.ensure_future(self._show(self._text))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _show(self, text: str) -> None:
        async with self._lock:
            if self._message is None:
                self._message = await self._adapter.send(self._chat, text + MORE)
            else:
                self.edits += 1
                await self._adapter.edit(self._chat, self._message, text + MORE)

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
