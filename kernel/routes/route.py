"""An agent's route: its primary model and the fallbacks that may answer when the primary cannot.

Which fallbacks a route may use is decided once, when the route is planned,
so no request ever reaches a model the agent was not allowed: a fallback at
another vendor is dropped unless the agent opted in (``any_vendor``: the
conversation would go to another company), and one whose price is above
``price_ceiling`` times the primary's is dropped (default 1.0: a fallback
never costs more than the primary). A model without a known price (a local
server, a model missing from the table) cannot be compared and is kept: the
spend view already shows its tokens as unpriced. Each dropped fallback comes
back with the reason, for the CLI and Settings to say.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from ..accounting.prices import price_of
from .target import Target

PriceTable = Mapping[str, Mapping[str, Mapping[str, float]]]
MAX_FALLBACKS = 8


@dataclass(frozen=True)
class Route:
    """``primary`` then ``fallbacks`` in order; ``any_vendor``: fallbacks at other vendors allowed."""

    primary: Target
    fallbacks: tuple[Target, ...] = ()
    any_vendor: bool = False
    price_ceiling: float = 1.0

    def to_json(self) -> dict[str, object]:
        return {"fallbacks": [str(t) for t in self.fallbacks], "any_vendor": self.any_vendor,
                "price_ceiling": self.price_ceiling}


@dataclass(frozen=True)
class Plan:
    """The candidates a request may go to, in order, and the fallbacks left out with why."""

    candidates: tuple[Target, ...]
    dropped: tuple[tuple[Target, str], ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Widened:
    """A turn outgrew every window up to ``past`` tokens (even after compaction): its requests go to a model
    with a larger one (``agents/widen_step.py``); ``reason`` is their route reason, in words."""

    past: int
    reason: str


def plan(route: Route, prices: PriceTable) -> Plan:
    """The route's usable candidates: the primary, then each allowed fallback once."""
    kept: list[Target] = [route.primary]
    dropped: list[tuple[Target, str]] = []
    for target in route.fallbacks[:MAX_FALLBACKS]:
        why = refusal(route, target, prices)
        if why is not None:
            dropped.append((target, why))
        elif target not in kept:
            kept.append(target)
    return Plan(tuple(kept), tuple(dropped))


def refusal(route: Route, target: Target, prices: PriceTable) -> str | None:
    """Why ``target`` may not answer for this route, or None."""
    if target.vendor != route.primary.vendor and not route.any_vendor:
        return (f"{target} is at another vendor than {route.primary.provider}: "
                "allow it with --fallback-any-vendor (the conversation would be sent there)")
    ceiling = _unit_price(prices, route.primary)
    price = _unit_price(prices, target)
    if ceiling is not None and price is not None and price > ceiling * route.price_ceiling + 1e-12:
        return (f"{target} costs more than {route.price_ceiling:g}× {route.primary}'s price "
                f"({price:g} against {ceiling:g} per million tokens in and out)")
    return None


def _unit_price(prices: PriceTable, target: Target) -> float | None:
    """One figure to compare models by: the price of a million input plus a million output tokens."""
    price = price_of(prices, target.provider, target.model)
    return None if price is None else price.input + price.output

