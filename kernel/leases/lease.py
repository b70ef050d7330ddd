"""Leases: expiring, scoped permissions, checked against the clock at every use.

A lease is ``{id, subject, scope, until}``; its id is the seq of its
``lease.grant`` entry. Scopes are dotted: ``fs`` covers ``fs.read`` and
``fs.write``; ``*`` covers everything. There is no lease without an end: the
durations on offer are five minutes, the Settings default, an hour and a
working day (eight hours). An expired lease is simply not there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The scope grammar, in one place (the registry, ``--grant``, policies, hooks and skill manifests use it):
# a lower-case first word, then dotted parts of letters, digits, - and _, so a tool named by a third party
# (an MCP server's ``get-sum``, ``getTinyImage``) is named in its scope as written.
SCOPE_PATTERN = r"[a-z][a-z0-9_-]*(?:\.[A-Za-z0-9][A-Za-z0-9_-]*)*"
SCOPE_RE = re.compile(rf"^{SCOPE_PATTERN}$")
FIVE_MINUTES = 5 * 60.0
ONE_HOUR = 60 * 60.0
WORKING_DAY = 8 * 60 * 60.0
MAX_DURATION = WORKING_DAY


@dataclass(frozen=True)
class Lease:
    id: int
    subject: str      # the agent id
    scope: str
    until: float      # unix time

    def covers(self, scope: str, now: float) -> bool:
        return now < self.until and scope_covers(self.scope, scope)

    def seconds_left(self, now: float) -> float:
        return max(0.0, self.until - now)


# Scopes that widen what a parent scope allows are never implied by the parent:
# a lease for shell.exec runs commands without network; the network must be
# granted by name (or by "*").
EXPLICIT_SCOPES = frozenset({"shell.exec.net"})


def scope_covers(granted: str, wanted: str) -> bool:
    """True when a lease for ``granted`` allows ``wanted`` (``fs`` covers ``fs.write``)."""
    if granted == "*" or wanted == granted:
        return True
    return wanted not in EXPLICIT_SCOPES and wanted.startswith(granted + ".")


def offered_durations(default_s: float) -> tuple[float, ...]:
    """The dialog's choices in order: 5 minutes, the default, 1 hour, a working day (no duplicates)."""
    out: list[float] = []
    for d in (FIVE_MINUTES, min(default_s, MAX_DURATION), ONE_HOUR, WORKING_DAY):
        if d not in out:
            out.append(d)
    return tuple(out)


def parse_duration(text: str) -> float:
    """``30s``, ``5m``, ``1h``, ``8h`` → seconds; ValueError for anything else or over a working day."""
    units = {"s": 1, "m": 60, "h": 3600}
    text = text.strip().lower()
    if len(text) < 2 or text[-1] not in units or not text[:-1].isdigit():
        raise ValueError(f"bad duration {text!r}: use a number and s, m or h (30s, 5m, 1h)")
    seconds = int(text[:-1]) * units[text[-1]]
    if seconds <= 0 or seconds > MAX_DURATION:
        raise ValueError(f"bad duration {text!r}: a lease lasts from 1s to 8h")
    return float(seconds)


def describe_duration(seconds: float) -> str:
    """A duration in words: "5 minutes", "1 hour", "Working day"."""
    if seconds == WORKING_DAY:
        return "Working day"
    if seconds % 3600 == 0:
        h = int(seconds // 3600)
        return f"{h} hour" + ("s" if h != 1 else "")
    if seconds % 60 == 0:
        m = int(seconds // 60)
        return f"{m} minute" + ("s" if m != 1 else "")
    return f"{int(seconds)} seconds"


def describe_left(seconds: float) -> str:
    """Time left as people say it: "4 min left", "40 s left", "2 h 5 min left"."""
    s = int(seconds)
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60} min left"
    if s >= 60:
        return f"{(s + 59) // 60} min left"
    return f"{s} s left"
