"""The state block: what changes from request to request, said at the tail of the newest turn.

Budget, live leases, others' recent changes, attachment, taint and the date
used to sit in the system prompt, which changed on almost every request and
so cached nothing after it (measured on a 30-call tool loop, issue 24: 0% cache
reads on Anthropic, ~6% elsewhere). They now travel as a short block appended
to the newest user turn or tool results, and only when the state changed in a
coarse step: the budget when it crosses a threshold, a lease when it is
granted, enters its last minute or ends, a change by another agent when it
lands, the date at midnight. ``render`` is a pure function of the coarse
``State``, so comparing the rendered text is comparing the state, and the
text recorded on the request entry is what the model read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

LAST_MINUTE = 60.0
# Budget thresholds (fraction left) at which the state is said again: coarse enough to change a handful of
# times in a conversation, fine enough that the model knows to wrap up near the end.
BUDGET_STEPS = (0.75, 0.5, 0.25, 0.1, 0.05)
HEADER = "[Agentdesk state]"


@dataclass(frozen=True)
class LeaseState:
    scope: str
    until: float
    last_minute: bool


@dataclass(frozen=True)
class Change:
    seq: int
    actor: str
    verb: str
    path: str  # relative to the workspace where it is inside


@dataclass(frozen=True)
class State:
    """The coarse state of an agent, as the model is told it."""

    budget_limit: int
    budget_step: float          # the lowest threshold of BUDGET_STEPS the budget left is under (1.0: none)
    leases: tuple[LeaseState, ...]
    changes: tuple[Change, ...]
    attached: bool
    date: str
    taint: str = ""             # the taint line, "" when untainted


def budget_step(left: int, limit: int) -> float:
    """The coarse step of the budget left: 1.0, then each threshold of ``BUDGET_STEPS`` crossed."""
    share = left / limit if limit > 0 else 0.0
    step = 1.0
    for threshold in BUDGET_STEPS:
        if share < threshold:
            step = threshold
    return step


def day_of(now: float) -> str:
    return f"{datetime.fromtimestamp(now, timezone.utc):%A %d %B %Y}"


def lease_state(scope: str, until: float, now: float) -> LeaseState:
    return LeaseState(scope, until, until - now <= LAST_MINUTE)


def render(state: State) -> str:
    """The block as the model reads it (a pure function of ``state``)."""
    lines = [HEADER, f"- Today is {state.date} (UTC)."]
    lines.append("- A person is at the desktop and can answer permission requests." if state.attached else
                 "- No desktop is attached: permission requests you make may go unanswered and be refused.")
    if state.budget_step >= 1.0:
        lines.append(f"- Budget: more than {BUDGET_STEPS[0]:.0%} of {state.budget_limit:,} tokens left.")
    else:
        lines.append(f"- Budget: less than {state.budget_step:.0%} of {state.budget_limit:,} tokens left.")
    if state.leases:
        held = ", ".join(f"{l.scope} (until {_hhmm(l.until)} UTC{', less than a minute left' if l.last_minute else ''})"
                         for l in state.leases)
        lines.append(f"- Leases: {held}.")
    else:
        lines.append("- Leases: none.")
    if state.changes:
        lines.append("- Recent changes by others (newest first):")
        lines += [f"  - {c.actor} {c.verb} {c.path} (#{c.seq})" for c in state.changes]
    else:
        lines.append("- Recent changes by others: none.")
    if state.taint:
        lines.append(state.taint)
    return "\n".join(lines)


def is_state_block(text: str) -> bool:
    """Whether a user-turn text part is a state block (views show the user's words, not these)."""
    return text.startswith(HEADER + "\n")


def block_if_changed(state: State, last: str) -> str:
    """The block to append when the state changed since ``last`` (the last block sent), else ""."""
    text = render(state)
    return "" if text == last else text


def _hhmm(ts: float) -> str:
    return f"{datetime.fromtimestamp(ts, timezone.utc):%H:%M}"
