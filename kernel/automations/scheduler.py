"""The scheduler: which slots are due, who claims them, retries, catch-up and recovery.

It runs as one task on the kernel's loop and waits on the kernel clock (so
tests advance a ``ManualClock`` instead of sleeping), woken early when an
automation changes. Each tick, per enabled automation: the fire times since
the last claimed slot (or since it was created or resumed) are computed;
all but the newest are recorded ``missed``; the newest runs once if it is
within the grace window (Settings, 12 h), else it is missed too. A failed
slot is retried after 30 s, 1, 5, 15 and 60 minutes while it is still the
newest slot (an interrupted one too, if the automation says so); after ``automation_pause_after`` failed slots in a row the
automation pauses itself with a notice in the Inbox. Every start is a claim
first: the scheduler that inserts the claim row runs the slot, any other
scheduler on the same home skips it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import uuid
from typing import TYPE_CHECKING, Any

from .gate import RunWatch
from .model import Automation
from .runner import STOPPED_DETAIL, Slot, run_slot
from .store import AutomationStore, RunRecord
from ..core.pids import pid_alive

if TYPE_CHECKING:
    from .service import Automations

BACKOFF_S = (30.0, 60.0, 300.0, 900.0, 3600.0)
RETRY_TICK_S = 30.0
log = logging.getLogger(__name__)



class Scheduler:
    def __init__(self, service: "Automations", store: AutomationStore) -> None:
        self._service = service
        self._store = store
        self.worker = f"{os.getpid()}:{uuid.uuid4().hex[:12]}"
        self._wake = asyncio.Event()
        self.running: dict[tuple[str, float, int], asyncio.Task[RunRecord | None]] = {}

    # ---- recovery --------------------------------------------------------------------

    def recover(self) -> list[RunRecord]:
        """Mark runs a dead kernel left behind as interrupted (never re-run for their slot)."""
        out = []
        now = self._service.host.clock.now()
        for claim in self._store.unfinished():
            pid_s, _, _ = claim.worker.partition(":")
            pid = int(pid_s) if pid_s.isdigit() else -1
            if claim.worker == self.worker or (pid != os.getpid() and pid_alive(pid)):
                continue
            agent = self._store.agent_of(claim.automation, claim.slot, claim.attempt)
            run = RunRecord(claim.automation, claim.slot, claim.attempt, now, agent, "interrupted",
                            STOPPED_DETAIL, "", ())
            if self._store.finish(run):
                out.append(run)
        return out

    # ---- the loop ------------------------------------------------------------------------

    def poke(self) -> None:
        self._wake.set()

    async def run_forever(self) -> None:
        clock = self._service.host.clock
        while True:
            self._wake.clear()
            try:
                wake_at = self.tick()
            except sqlite3.Error as exc:  # a locked or damaged file must not end the scheduler: look again soon
                log.warning("automations: could not read or claim slots (%s); trying again in %g s", exc, RETRY_TICK_S)
                wake_at = clock.now() + RETRY_TICK_S
            waiters: list[asyncio.Future[Any]] = [asyncio.ensure_future(self._wake.wait())]
            if wake_at is not None:
                waiters.append(asyncio.ensure_future(clock.sleep_until(wake_at)))
            try:
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for w in waiters:
                    w.cancel()

    def tick(self) -> float | None:
        """Start what is due now; returns when to look again (None: only when woken)."""
        now = self._service.host.clock.now()
        wakes = [w for a in self._store.automations() if (w := self._tick_one(a, now)) is not None]
        return min(wakes, default=None)

    def _tick_one(self, a: Automation, now: float) -> float | None:
        if not a.enabled:
            return None
        if self._service.held(a.id) is not None:  # its records failed verification: not until the user looks
            return None
        if a.expires is not None and now >= a.expires:
            return None
        when = a.when
        last = self._store.last_slot(a.id)
        since = max(x for x in (last, self._store.enabled_since(a.id), a.created_at) if x is not None)
        fires = when.latest_fires(since, now, anchor=a.created_at)
        grace = self._service.host.settings.automation_grace_s
        for t in fires[:-1]:
            self._miss(a, t, now, "a newer slot came before it could run")
        if fires:
            latest = fires[-1]
            if now - latest <= grace:
                self.start(a, Slot(a.id, latest, 0))
            else:
                self._miss(a, latest, now, "older than the catch-up window")
        retry_at = self._retry(a, now)
        next_fire = when.next_fire(now, a.created_at)
        candidates = [next_fire] + ([retry_at] if retry_at is not None else [])
        if a.expires is not None:
            candidates.append(a.expires)
        return min(candidates)

    def _miss(self, a: Automation, t: float, now: float, why: str) -> None:
        if self._store.claim(a.id, t, 0, self.worker, now):
            self._store.finish(RunRecord(a.id, t, 0, now, None, "missed", why, "", ()))

    def _retry(self, a: Automation, now: float) -> float | None:
        """Start the next attempt of the newest slot if it failed and its backoff is over; else when it will be."""
        last = self._store.last_slot(a.id)
        if last is None or a.when.next_fire(last, a.created_at) <= now:
            return None  # a newer slot has come: the failed one is not retried
        runs = [r for r in self._store.runs(a.id, limit=len(BACKOFF_S) + 2) if r.slot == last]
        retryable = ("failed", "interrupted") if a.retry_interrupted else ("failed",)
        if not runs or runs[0].outcome not in retryable or runs[0].attempt >= len(BACKOFF_S):
            return None
        due = runs[0].ts + BACKOFF_S[runs[0].attempt]
        if now >= due:
            self.start(a, Slot(a.id, last, runs[0].attempt + 1))
            return None
        return due

    def start(self, a: Automation, slot: Slot) -> asyncio.Task[RunRecord | None] | None:
        """Claim the slot and run it; None when another scheduler (or an earlier tick) has it."""
        if not self._store.claim(a.id, slot.at, slot.attempt, self.worker, self._service.host.clock.now(), slot.manual):
            return None
        key = (a.id, slot.at, slot.attempt)
        task = asyncio.get_running_loop().create_task(self._run(a, slot), name=f"automation {a.id} {slot.at}")
        self.running[key] = task
        task.add_done_callback(lambda _t: self.running.pop(key, None))
        return task

    async def _run(self, a: Automation, slot: Slot) -> RunRecord | None:
        prior = next((r for r in self._store.runs(a.id, limit=20) if r.outcome != "missed"), None)
        watch = RunWatch(a.id, a.name)
        run = await run_slot(self._service.host, self._service.gate, a, slot, watch, prior,
                             lambda agent: self._store.note_agent(a.id, slot.at, slot.attempt, agent))
        if not self._store.finish(run):
            return None
        self._service.ran(a, run)
        self.poke()
        return run
