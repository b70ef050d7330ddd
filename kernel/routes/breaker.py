"""A circuit breaker per (provider, model): stop sending to a model that keeps failing, then probe it.

A request counts against a model only after the retry policy gave up on it
(``providers/retry.py``: three tries by default), so one failed request is
already a run of failures and opens the breaker at once. Open, the model is
skipped for a window: 30 s, or the server's ``Retry-After`` when longer,
doubled each time a probe fails, at most 10 minutes. When the window ends
the next request is the one half-open probe (sent without retries, so a
model still down costs one request, not a retry budget); other requests keep
skipping it meanwhile. A probe that answers closes the breaker.

Per model, not per key: an overloaded model is overloaded for every key, and
the breaker is shared by every agent of the kernel. Time is the kernel's
injected clock (``now`` is passed in), so tests move through minutes of
outage without sleeping. Every change of state is returned as a
``Transition`` for the caller to put on the ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .target import Target

BASE_WINDOW_S = 30.0
MAX_WINDOW_S = 600.0


class BreakerState(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


@dataclass(frozen=True)
class Transition:
    """A breaker changed state: ``until`` is when an open one may be probed; ``reason`` in words."""

    target: Target
    state: BreakerState
    reason: str
    until: float | None = None


@dataclass(frozen=True)
class Go:
    """Send the request; ``probe``: it is the one half-open probe (send it without retries)."""

    probe: bool = False
    transition: Transition | None = None


@dataclass(frozen=True)
class Skip:
    """Do not send to this model now: its breaker is open until ``until`` (or a probe is in flight)."""

    until: float
    reason: str


Admission = Go | Skip


@dataclass
class _Breaker:
    state: BreakerState = BreakerState.CLOSED
    until: float = 0.0
    window_s: float = 0.0
    reason: str = ""


class BreakerBoard:
    """The kernel's breakers, one per (provider, model), made on first use."""

    def __init__(self) -> None:
        self._breakers: dict[Target, _Breaker] = {}

    def reopen(self, target: Target, until: float, window_s: float, reason: str) -> None:
        """An open breaker read back from the record at start (``routes/restart.py``): skipped until ``until``,
        then probed, its next window twice ``window_s``."""
        self._breakers[target] = _Breaker(BreakerState.OPEN, until, window_s, reason)

    def state(self, target: Target) -> BreakerState:
        breaker = self._breakers.get(target)
        return breaker.state if breaker is not None else BreakerState.CLOSED

    def admit(self, target: Target, now: float, *, last: bool = False) -> Admission:
        """May a request go to ``target`` now? The last candidate of a route always goes."""
        breaker = self._breakers.get(target)
        if breaker is None or breaker.state is BreakerState.CLOSED:
            return Go()
        if breaker.state is BreakerState.OPEN and now >= breaker.until:
            breaker.state = BreakerState.HALF_OPEN
            return Go(probe=True, transition=Transition(target, BreakerState.HALF_OPEN,
                                                        f"probing {target} after {breaker.reason}"))
        if last:
            return Go()
        return Skip(breaker.until, breaker.reason)

    def failed(self, target: Target, now: float, reason: str, retry_after: float | None = None) -> Transition | None:
        """A request to ``target`` failed for good (retries spent): open it, or keep it open longer."""
        breaker = self._breakers.setdefault(target, _Breaker())
        was_open = breaker.state is BreakerState.OPEN
        grown = breaker.window_s * 2 if breaker.state is not BreakerState.CLOSED else BASE_WINDOW_S
        window = min(MAX_WINDOW_S, max(BASE_WINDOW_S, grown, retry_after or 0.0))
        breaker.window_s, breaker.reason = window, reason
        breaker.until = max(breaker.until, now + window) if was_open else now + window
        breaker.state = BreakerState.OPEN
        if was_open:
            return None  # the last candidate, tried while open, failed again: nothing new to say
        return Transition(target, BreakerState.OPEN, reason, breaker.until)

    def succeeded(self, target: Target) -> Transition | None:
        """``target`` answered: close its breaker (a transition only when it was not closed)."""
        breaker = self._breakers.pop(target, None)
        if breaker is None or breaker.state is BreakerState.CLOSED:
            return None
        return Transition(target, BreakerState.CLOSED, f"{target} answered again")

    def released(self, target: Target) -> None:
        """A probe ended without a verdict (cancelled, or a failure that says nothing of the model's
        health): the next request may probe again."""
        breaker = self._breakers.get(target)
        if breaker is not None and breaker.state is BreakerState.HALF_OPEN:
            breaker.state = BreakerState.OPEN
