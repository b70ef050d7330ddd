"""Breakers carried over a restart: rebuilt from their ``route.breaker`` entries, not forgotten.

A kernel that starts with empty breakers sends its first requests to a model
that was down a minute ago, with the full retry budget each, before it learns
again what the ledger already says. So at start the newest transition of each
(provider, model) is read back: an ``open`` one stays open until its recorded
``until`` and is then probed once, as if the kernel had never stopped; a
``half_open`` one (the kernel stopped during the probe) is open with its
window over, so the next request is the probe; ``closed`` is nothing to
keep. A window that ended more than ``FORGET_AFTER_S`` before the restart is
forgotten: the outage it recorded says little about the model now, and a
probe (sent without retries) would turn a passing blip into a fall over.
The entries are hostile input like any record: a wrong-typed field skips
the entry.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from ledger import RouteBreaker

from .breaker import BASE_WINDOW_S, MAX_WINDOW_S, BreakerState
from .target import Target

FORGET_AFTER_S = MAX_WINDOW_S  # a window over for longer than the longest one is forgotten
READ_BACK = 500  # the newest route.breaker entries read at start (transitions are rare: a few per outage)


@dataclass(frozen=True)
class Remembered:
    """An open breaker as the record left it: open until ``until`` (unix seconds), its window, and why."""

    target: Target
    until: float
    window_s: float
    reason: str


def remembered(newest_first: Iterable[RouteBreaker], now: float) -> list[Remembered]:
    """The breakers still open (or mid-probe) at ``now``, from the record's transitions, newest first."""
    seen: set[Target] = set()
    probing: dict[Target, RouteBreaker] = {}  # mid-probe: the window comes from the open entry before it
    out: list[Remembered] = []
    for entry in newest_first:
        if not (isinstance(entry.provider, str) and isinstance(entry.model, str) and isinstance(entry.state, str)):
            continue
        target = Target(entry.provider, entry.model)
        if target in seen:
            continue
        if target in probing:  # the entry before a half-open one: the window that was being probed
            seen.add(target)
            half = probing.pop(target)
            kept = _kept(target, half.ts, _window(entry), _words(entry.reason), now)
            out.extend(kept)
            continue
        if entry.state == BreakerState.HALF_OPEN:
            probing[target] = entry
            continue
        seen.add(target)
        if entry.state == BreakerState.OPEN and _number(entry.until):
            out.extend(_kept(target, float(entry.until or 0.0), _window(entry), _words(entry.reason), now))
    for target, half in probing.items():  # a probe with no open entry left to read: the base window
        out.extend(_kept(target, half.ts, BASE_WINDOW_S, _words(half.reason), now))
    return out


def _kept(target: Target, until: float, window_s: float, reason: str, now: float) -> list[Remembered]:
    if not math.isfinite(until) or until + FORGET_AFTER_S < now:
        return []
    return [Remembered(target, until, window_s, reason)]


def _window(entry: RouteBreaker) -> float:
    """How long the window was: from the transition's time to its ``until``, within the breaker's bounds."""
    if not _number(entry.until) or not _number(entry.ts):
        return BASE_WINDOW_S
    return min(MAX_WINDOW_S, max(BASE_WINDOW_S, float(entry.until or 0.0) - float(entry.ts)))


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _words(reason: object) -> str:
    return reason[:500] if isinstance(reason, str) else ""
