"""Per-scope autonomy: what the executor does when a call needs a scope.

``ask`` (the default) opens the lease dialog; ``confirm`` asks on every call
and no lease covers it (the default for R3, outward calls, so
``shell.exec.net`` asks each time); ``auto`` has the kernel grant the
default-duration lease itself, recorded as granted by ``policy``; ``deny``
refuses without asking. The most specific configured scope wins: a policy
for ``fs`` covers ``fs.write`` unless ``fs.write`` has its own.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Mapping

from ..leases.lease import scope_covers
from ..core.risk import Risk


class Mode(StrEnum):
    ASK = "ask"
    CONFIRM = "confirm"
    AUTO = "auto"
    DENY = "deny"


MODES: tuple[str, ...] = tuple(m.value for m in Mode)


def configured(scope: str, policies: Mapping[str, str], outward: bool = False) -> tuple[str, Mode] | None:
    """The most specific configured policy covering ``scope`` (its scope and mode), or None. For an
    ``outward`` (R3) call a ``*`` policy does not count: only a policy naming its scope lifts ``confirm``."""
    best: tuple[str, Mode] | None = None
    for pattern, mode in policies.items():
        if outward and pattern == "*":
            continue
        if scope_covers(pattern, scope) and (best is None or _specificity(pattern) > _specificity(best[0])):
            best = (pattern, Mode(mode))
    return best


def mode_for(scope: str, risk: Risk, policies: Mapping[str, str], always_confirm: bool = False) -> Mode:
    """What to do for a call of ``risk`` needing ``scope``: the configured policy, else the default
    (``confirm`` for outward calls). A tool that ``always_confirm``s is confirmed whatever the policy,
    unless the policy denies it."""
    found = configured(scope, policies, outward=risk is Risk.OUTWARD)
    if always_confirm:
        return Mode.DENY if found is not None and found[1] is Mode.DENY else Mode.CONFIRM
    if found is not None:
        return found[1]
    return Mode.CONFIRM if risk is Risk.OUTWARD else Mode.ASK


def _specificity(pattern: str) -> int:
    return -1 if pattern == "*" else pattern.count(".") + 1
