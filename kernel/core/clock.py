"""The kernel's sense of time, injected so tests never sleep.

``now()`` is wall time in unix seconds (lease ``until`` values, ledger
timestamps); ``sleep()`` waits on the same clock. ``monotonic()`` never goes
back: wall time can (NTP, a person setting the clock), and a lease must not
last longer because of it. ``ManualClock`` only moves when a test calls
``advance`` (both clocks) or ``set_wall`` (the wall clock alone), waking
every sleeper whose time has come.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...

    async def sleep_until(self, deadline: float) -> None: ...


class SystemClock:
    """Real time."""

    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    async def sleep_until(self, deadline: float) -> None:
        await asyncio.sleep(max(0.0, deadline - time.time()))


class ManualClock:
    """A clock that moves only when told to."""

    def __init__(self, start: float = 1_790_000_000.0) -> None:
        self._now = start
        self._mono = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._ids = itertools.count()

    def now(self) -> float:
        return self._now

    def monotonic(self) -> float:
        return self._mono

    def set_wall(self, when: float) -> None:
        """Set the wall clock alone (backwards too), as NTP or a person does; ``monotonic`` does not move."""
        self._now = when

    async def sleep(self, seconds: float) -> None:
        await self.sleep_until(self._now + seconds)

    async def sleep_until(self, deadline: float) -> None:
        if deadline <= self._now:
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (deadline, next(self._ids), fut))
        await fut

    @property
    def sleepers(self) -> int:
        """How many sleeps are waiting (tests wait for this to reach a count)."""
        return sum(1 for _, _, f in self._sleepers if not f.done())

    def advance(self, seconds: float) -> None:
        """Move time forward and wake the sleepers that are due."""
        self._now += seconds
        self._mono += max(0.0, seconds)
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, fut = heapq.heappop(self._sleepers)
            if not fut.done():
                fut.set_result(None)


def local_midnight(now: float) -> float:
    """The epoch time of the local midnight that began the day holding ``now``."""
    t = time.localtime(now)
    return time.mktime((t.tm_year, t.tm_mon, t.tm_mday, 0, 0, 0, 0, 0, -1))
