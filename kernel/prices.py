"""Prices: what tokens cost, per provider and model, from the table in Settings.

The table maps provider → model → ``{input, output, cached_input}``, each
in money per million tokens (the providers' own unit). A request's cost is
its input tokens (less the cached ones) at ``input``, cached input tokens at
``cached_input`` and output tokens at ``output``. A model the table does not
name has no price: callers show its tokens only, never a guessed amount.
Shipped defaults cover each provider's default model (list prices, 2025).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

PRICE_FIELDS = ("input", "output", "cached_input")
PRICE_MAX = 10_000.0       # per million tokens: anything above is a typo
MODELS_MAX = 500           # models priced per provider

DEFAULT_PRICES: Mapping[str, Mapping[str, Mapping[str, float]]] = {
    "anthropic": {"claude-sonnet-4-5": {"input": 3.0, "output": 15.0, "cached_input": 0.3}},
    "openai": {"gpt-5": {"input": 1.25, "output": 10.0, "cached_input": 0.125}},
    "openai-chat": {"gpt-5": {"input": 1.25, "output": 10.0, "cached_input": 0.125}},
    "gemini": {"gemini-2.5-flash": {"input": 0.3, "output": 2.5, "cached_input": 0.03}},
}


@dataclass(frozen=True)
class Price:
    """Money per million tokens."""

    input: float
    output: float
    cached_input: float

    def cost(self, input_tokens: int, output_tokens: int, cached_tokens: int = 0) -> float:
        fresh = max(0, input_tokens - cached_tokens)
        return (fresh * self.input + cached_tokens * self.cached_input + output_tokens * self.output) / 1e6


def price_of(table: Mapping[str, Mapping[str, Mapping[str, float]]], provider: str, model: str) -> Price | None:
    """The price of ``model`` at ``provider``, or None when the table does not name it."""
    row = table.get(provider, {}).get(model)
    if row is None:
        return None
    return Price(float(row["input"]), float(row["output"]), float(row["cached_input"]))


def cost_of(table: Mapping[str, Mapping[str, Mapping[str, float]]], provider: str, model: str,
            input_tokens: int, output_tokens: int, cached_tokens: int = 0) -> float | None:
    price = price_of(table, provider, model)
    return None if price is None else price.cost(input_tokens, output_tokens, cached_tokens)


def valid_price(value: Any) -> bool:
    """``{input, output, cached_input}``: exactly those, each a finite number from 0 to PRICE_MAX."""
    return (isinstance(value, dict) and set(value) == set(PRICE_FIELDS)
            and all(_amount(value[f]) for f in PRICE_FIELDS))


def valid_models(value: Any) -> bool:
    """A provider's prices: model name → price, at most MODELS_MAX of them."""
    return (isinstance(value, dict) and len(value) <= MODELS_MAX
            and all(isinstance(m, str) and 0 < len(m) <= 200 and not any(c.isspace() for c in m) and m.isprintable()
                    and valid_price(p) for m, p in value.items()))


def frozen_prices(value: Mapping[str, Any]) -> dict[str, dict[str, dict[str, float]]]:
    """A checked table as plain dicts of floats (so ``3`` and ``3.0`` read alike)."""
    return {prov: {m: {f: float(p[f]) for f in PRICE_FIELDS} for m, p in models.items()}
            for prov, models in value.items()}


def money(amount: float) -> str:
    """An amount in words on screen: ``$0.42``, ``$12.30``, below a cent ``<$0.01``."""
    if amount <= 0:
        return "$0.00"
    if amount < 0.01:
        return "<$0.01"
    return f"${amount:,.2f}"


def _amount(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 <= v <= PRICE_MAX
