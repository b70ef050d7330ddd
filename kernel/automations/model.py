"""An automation's definition: frozen, plain data, checked by the kernel before it is stored."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Mapping

from .schedule import Schedule, ScheduleRefused

_SCOPE = re.compile(r"^(\*|[a-z][a-z0-9_-]*(\.[a-z0-9_*-]+)*)$")
MAX_LEASE_S = 8 * 3600.0


@dataclass(frozen=True)
class PolicyItem:
    """One lease each run gets: ``scope`` for ``duration_s`` (never past the run's end)."""

    scope: str
    duration_s: float


@dataclass(frozen=True)
class Automation:
    id: str
    name: str
    objective: str
    schedule: str
    timezone: str = "UTC"
    policy: tuple[PolicyItem, ...] = ()
    budget: int = 100_000
    time_limit_s: float = 1800.0
    workspace: str = ""
    provider: str = ""
    model: str = ""
    expires: float | None = None
    enabled: bool = True
    retry_interrupted: bool = False  # a run the kernel stopped in is tried again for its slot (off: never twice)
    fallbacks: tuple[str, ...] = ()  # its route (kernel/routes): provider:model answering when its model cannot
    any_vendor: bool = False         # a fallback may be at another vendor (the run's conversation goes there)
    created_at: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def when(self) -> Schedule:
        return Schedule(self.schedule, self.timezone)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["policy"] = [asdict(p) for p in self.policy]
        out["extra"] = dict(self.extra)
        return out

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "Automation":
        data = dict(data)
        data["policy"] = tuple(PolicyItem(str(p["scope"]), float(p["duration_s"])) for p in data.get("policy", ()))
        if isinstance(data.get("fallbacks"), list):
            data["fallbacks"] = tuple(data["fallbacks"])
        known = set(Automation.__dataclass_fields__)
        return Automation(**{k: v for k, v in data.items() if k in known})

    def with_(self, **changes: Any) -> "Automation":
        return replace(self, **changes)


def check_definition(a: Automation, now: float) -> None:
    """Refuse a definition the kernel will not run (``ScheduleRefused`` with the sentence to show)."""
    if not a.name.strip() or len(a.name) > 80:
        raise ScheduleRefused("An automation needs a name of 1 to 80 characters.")
    if not a.objective.strip():
        raise ScheduleRefused("An automation needs an objective: what each run should do.")
    a.when.check(now)
    if a.budget <= 0:
        raise ScheduleRefused("The budget per run must be a positive number of tokens.")
    if not 60 <= a.time_limit_s <= 24 * 3600:
        raise ScheduleRefused("The run time limit must be between one minute and one day.")
    if a.expires is not None and a.expires <= now:
        raise ScheduleRefused("The expiry date is already past.")
    _check_route(a)
    for item in a.policy:
        if not _SCOPE.match(item.scope):
            raise ScheduleRefused(f"{item.scope!r} is not a scope (write it like fs.read or shell.exec).")
        if item.scope == "automation.create" or item.scope == "*":
            raise ScheduleRefused(f"An automation's policy cannot hold {item.scope!r}: runs may not make automations.")
        if not 0 < item.duration_s <= MAX_LEASE_S:
            raise ScheduleRefused(f"The lease for {item.scope} must last between a second and eight hours.")


def _check_route(a: Automation) -> None:
    """Fallbacks written provider:model, and at the automation's own vendor unless it opted in."""
    from ..core.errors import ConfigError
    from ..providers.catalog import PROVIDER_NAMES
    from ..routes.target import parse_target

    try:
        targets = [parse_target(text, PROVIDER_NAMES) for text in a.fallbacks]
    except (ConfigError, AttributeError) as exc:
        raise ScheduleRefused(f"A fallback is written provider:model ({exc}).") from None
    foreign = [t for t in targets if a.provider and t.provider != a.provider]
    if foreign and not a.any_vendor:
        raise ScheduleRefused(f"The fallback {foreign[0]} is at another vendor than {a.provider}: allow other "
                              "vendors for this automation to use it (its runs' conversations would go there).")
