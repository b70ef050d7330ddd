"""Routes made from what a person wrote: ``--fallback provider:model``, Settings, a spawn entry.

Explicit fallbacks at another vendor without the opt-in are refused with a
sentence (the person asked for something the route would silently drop);
Settings' default fallbacks are only filtered by the plan, so a default
written for one agent's provider never sends another agent's conversation
elsewhere.
"""

from __future__ import annotations

import math
from typing import Sequence

from ..core.errors import ConfigError
from ..providers.catalog import PROVIDER_NAMES
from .route import MAX_FALLBACKS, Route
from .target import Target, parse_target

CEILING_MAX = 100.0


def route_for(provider: str, model: str, fallbacks: Sequence[str], *, any_vendor: bool = False,
              price_ceiling: float = 1.0, explicit: bool = True) -> Route | None:
    """The route of an agent on ``provider``/``model``; None when it has no fallbacks. ``explicit``:
    the fallbacks were named for this agent (a cross-vendor one without ``any_vendor`` is refused)."""
    if not fallbacks:
        return None
    if not all(isinstance(text, str) for text in fallbacks):
        raise ConfigError("each fallback is written provider:model", "fallback")
    if len(fallbacks) > MAX_FALLBACKS:
        raise ConfigError(f"at most {MAX_FALLBACKS} fallbacks (found {len(fallbacks)})", "fallback")
    if (isinstance(price_ceiling, bool) or not isinstance(price_ceiling, (int, float))
            or not math.isfinite(price_ceiling) or not 0 < price_ceiling <= CEILING_MAX):
        raise ConfigError(f"a fallback price ceiling is a multiple of the primary's price from 0 to {CEILING_MAX:g}",
                          "fallback_price_ceiling")
    primary = Target(provider, model)
    targets = tuple(parse_target(text, PROVIDER_NAMES) for text in fallbacks)
    if explicit and not any_vendor:
        foreign = [str(t) for t in targets if t.vendor != primary.vendor]
        if foreign:
            raise ConfigError(f"fallback {foreign[0]} would send the conversation to another vendor than "
                              f"{provider}: add --fallback-any-vendor to allow it", "fallback")
    return Route(primary, targets, any_vendor, float(price_ceiling))


def route_of_spawn(provider: str, model: str, fallbacks: Sequence[str], any_vendor: bool,
                   price_ceiling: float) -> Route | None:
    """The route an ``agent.spawn`` entry recorded (hostile input: an unusable one is no route)."""
    try:
        return route_for(provider, model, tuple(fallbacks), any_vendor=any_vendor, price_ceiling=price_ceiling,
                         explicit=False)
    except (ConfigError, TypeError):
        return None
