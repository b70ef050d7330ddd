"""The live leases of every agent, kept in step with the ledger.

Granting appends a ``lease.grant`` entry (the lease's id is its seq);
revoking appends ``lease.revoke``; a lease whose time is up is recorded once
as ``expired`` and announced, but ``find`` never depends on that: it checks
``until`` against the clock on every call, so an expired lease is simply not
there even before the sweep notices it. A lease also ends when its duration
has passed on the monotonic clock: setting the wall clock back does not make
it last longer. The book also watches the clock
(``start_expiry_watch``) so each expiry is recorded when its time comes,
not only when someone next looks.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from ledger import KERNEL, USER, Expired, LeaseGrant, LeaseRevoke, Ledger

from ..core.clock import Clock
from ..core.events import Event, LeaseExpired, LeaseGranted, LeaseRevoked
from .lease import MAX_DURATION, Lease, scope_covers


class LeaseBook:
    def __init__(self, ledger: Ledger, clock: Clock, publish: Callable[[Event], None]) -> None:
        self._ledger = ledger
        self._clock = clock
        self._publish = publish
        self._live: dict[int, Lease] = {}
        self._mono = getattr(clock, "monotonic", None)  # None: a clock without one (wall time only)
        self._ends: dict[int, float] = {}  # lease id → its end on the monotonic clock
        self._expiry_task: asyncio.Task[None] | None = None
        self._granted: asyncio.Event | None = None  # set by each grant while the watch runs

    def grant(self, subject: str, scope: str, duration_s: float, by: str = USER) -> Lease:
        """A lease of ``duration_s`` (ValueError unless it is more than 0 s and at most a working day)."""
        if not (isinstance(duration_s, (int, float)) and 0 < duration_s <= MAX_DURATION):  # NaN fails too
            raise ValueError(f"a lease lasts more than 0 s and at most a working day, not {duration_s!r} s")
        now = self._clock.now()
        entry = self._ledger.append(LeaseGrant(actor=by, subject=subject, scope=scope, until=now + duration_s,
                                               duration_s=duration_s))
        lease = Lease(entry.seq, subject, scope, now + duration_s)
        self._live[lease.id] = lease
        self._end_after(lease.id, duration_s)
        self._publish(LeaseGranted(lease))
        if self._granted is not None:
            self._granted.set()
        return lease

    def adopt(self, leases: list[Lease]) -> None:
        """Keep leases granted before this kernel started (rebuilt from the ledger) as live."""
        now = self._clock.now()
        for lease in leases:
            self._live[lease.id] = lease
            self._end_after(lease.id, min(lease.until - now, MAX_DURATION))

    def _end_after(self, lease_id: int, seconds: float) -> None:
        if self._mono is not None:
            self._ends[lease_id] = self._mono() + seconds

    def _over(self, lease: Lease, now: float, mono: float | None) -> bool:
        """Its time is up, by the wall clock or by the monotonic one."""
        end = self._ends.get(lease.id)
        return lease.until <= now or (mono is not None and end is not None and end <= mono)

    def find(self, subject: str, scope: str) -> Lease | None:
        """A live lease of ``subject`` covering ``scope``, checked against the clock now."""
        now = self._clock.now()
        self.sweep(now)
        best = None
        for lease in self._live.values():
            if lease.subject == subject and lease.covers(scope, now):
                if best is None or lease.until > best.until:
                    best = lease
        return best

    def live(self, subject: str | None = None) -> list[Lease]:
        now = self._clock.now()
        self.sweep(now)
        return sorted((l for l in self._live.values() if subject is None or l.subject == subject),
                      key=lambda l: l.until)

    def revoke(self, lease_id: int, reason: str, by: str = USER) -> Lease | None:
        lease = self._live.pop(lease_id, None)
        if lease is None:
            return None
        self._ends.pop(lease_id, None)
        self._ledger.append(LeaseRevoke(actor=by, lease=lease.id, subject=lease.subject, reason=reason))
        self._publish(LeaseRevoked(lease, reason))
        return lease

    def revoke_all(self, subject: str, reason: str, by: str = USER) -> list[Lease]:
        return [l for l in (self.revoke(lid, reason, by) for lid in
                            [l.id for l in self._live.values() if l.subject == subject]) if l is not None]

    def sweep(self, now: float | None = None) -> list[Lease]:
        """Record and announce the leases whose time is up."""
        now = self._clock.now() if now is None else now
        mono = self._mono() if self._mono is not None else None
        due = [l for l in self._live.values() if self._over(l, now, mono)]
        for lease in due:
            del self._live[lease.id]
            self._ends.pop(lease.id, None)
            self._ledger.append(Expired(actor=KERNEL, scope=lease.scope, subject=lease.subject, lease=lease.id))
            self._publish(LeaseExpired(lease))
        return due

    def next_expiry(self) -> float | None:
        """The wall time of the next end (a monotonic end counts as the wall time it falls on now)."""
        now = self._clock.now()
        mono = self._mono() if self._mono is not None else None
        ends = (l.until if mono is None or l.id not in self._ends else min(l.until, now + self._ends[l.id] - mono)
                for l in self._live.values())
        return min(ends, default=None)

    def start_expiry_watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """Watch the clock on ``loop`` (again, if an earlier watch ended)."""
        if self._expiry_task is None or self._expiry_task.done():
            self._expiry_task = loop.create_task(self._watch_expiry(), name="lease expiry")

    def stop_expiry_watch(self) -> asyncio.Task[None] | None:
        """Cancel the watch; returns its task (to wait for) when there was one."""
        if self._expiry_task is not None:
            self._expiry_task.cancel()
        return self._expiry_task

    async def _watch_expiry(self) -> None:
        """Record each lease's expiry when its time comes (checks never wait for this)."""
        self._granted = changed = asyncio.Event()
        try:
            while True:
                changed.clear()
                due = self.next_expiry()
                waiters: list[asyncio.Future[Any]] = [asyncio.ensure_future(changed.wait())]
                if due is not None:
                    waiters.append(asyncio.ensure_future(self._clock.sleep_until(due)))
                try:
                    await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for w in waiters:
                        w.cancel()
                self.sweep()
        finally:
            self._granted = None

    def covered(self, subject: str, scope: str) -> bool:
        return self.find(subject, scope) is not None


__all__ = ["LeaseBook", "scope_covers"]
