"""The bot-to-bot loop guard: another bot may send at most ``per_minute`` messages a minute to a channel.

Two bots answering each other would spend a budget in minutes; a person
types far fewer than 10 messages a minute. Counted per (channel, bot sender)
over a sliding 60 s window on the kernel clock.
"""

from __future__ import annotations

from collections import deque
from typing import Callable

PER_MINUTE = 10


class LoopGuard:
    def __init__(self, now: Callable[[], float], per_minute: int = PER_MINUTE) -> None:
        self._now = now
        self._per_minute = per_minute
        self._seen: dict[tuple[str, str], deque[float]] = {}

    def allow(self, channel: str, sender: str) -> bool:
        now = self._now()
        seen = self._seen.setdefault((channel, sender), deque())
        while seen and seen[0] <= now - 60:
            seen.popleft()
        if len(seen) >= self._per_minute:
            return False
        seen.append(now)
        return True
