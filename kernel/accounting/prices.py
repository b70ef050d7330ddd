"""Prices: what tokens cost, per provider and model, from the table in Settings.

The table maps provider → model → ``{input, output, cached_input,
cache_write}``, each in money per million tokens (the providers' own unit);
``cache_write`` may be left out: that model has no cache-write price. A
request's cost is its input tokens (less the cached and cache-written ones)
at ``input``, cached input tokens at ``cached_input``, tokens written to the
prompt cache at ``cache_write`` and output tokens at ``output``. A model the
table does not name has no price, and neither has a request that wrote to
the cache of a model with no cache-write price: callers show its tokens only,
never a guessed amount. Shipped defaults cover each provider's default model
(list prices, 2025). Anthropic prices 5-minute cache writes at 1.25 times
the input price for every model, so an Anthropic row without a cache-write
price gets that one when settings are read (``with_cache_write``: the
migration of tables saved before the column existed, nothing else changed);
OpenAI and Gemini publish no cache-write price.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

PRICE_FIELDS = ("input", "output", "cached_input")
CACHE_WRITE = "cache_write"  # the optional fourth column
ANTHROPIC_CACHE_WRITE = 1.25  # times the input price: Anthropic's 5-minute cache writes
PRICE_MAX = 10_000.0       # per million tokens: anything above is a typo
MODELS_MAX = 500           # models priced per provider

DEFAULT_PRICES: Mapping[str, Mapping[str, Mapping[str, float]]] = {
    "anthropic": {"claude-sonnet-4-5": {"input": 3.0, "output": 15.0, "cached_input": 0.3, "cache_write": 3.75}},
    "openai": {"gpt-5": {"input": 1.25, "output": 10.0, "cached_input": 0.125}},
    "openai-chat": {"gpt-5": {"input": 1.25, "output": 10.0, "cached_input": 0.125}},
    "gemini": {"gemini-2.5-flash": {"input": 0.3, "output": 2.5, "cached_input": 0.03}},
}


@dataclass(frozen=True)
class Price:
    """Money per million tokens (``cache_write`` None: no price for writing to the prompt cache)."""

    input: float
    output: float
    cached_input: float
    cache_write: float | None = None

    def cost(self, input_tokens: int, output_tokens: int, cached_tokens: int = 0,
             written_tokens: int = 0) -> float | None:
        """The money, or None when tokens were written to the cache and that has no price."""
        if written_tokens > 0 and self.cache_write is None:
            return None
        fresh = max(0, input_tokens - cached_tokens - written_tokens)
        written = written_tokens * (self.cache_write or 0.0)
        return (fresh * self.input + cached_tokens * self.cached_input + written + output_tokens * self.output) / 1e6


def price_of(table: Mapping[str, Mapping[str, Mapping[str, float]]], provider: str, model: str) -> Price | None:
    """The price of ``model`` at ``provider``, or None when the table does not name it."""
    row = table.get(provider, {}).get(model)
    if row is None:
        return None
    write = row.get(CACHE_WRITE)
    return Price(float(row["input"]), float(row["output"]), float(row["cached_input"]),
                 None if write is None else float(write))


def cost_of(table: Mapping[str, Mapping[str, Mapping[str, float]]], provider: str, model: str,
            input_tokens: int, output_tokens: int, cached_tokens: int = 0, written_tokens: int = 0) -> float | None:
    price = price_of(table, provider, model)
    return None if price is None else price.cost(input_tokens, output_tokens, cached_tokens, written_tokens)


def valid_price(value: Any) -> bool:
    """``{input, output, cached_input}`` and optionally ``cache_write``: nothing else, each a finite
    number from 0 to PRICE_MAX."""
    return (isinstance(value, dict) and set(PRICE_FIELDS) <= set(value) <= {*PRICE_FIELDS, CACHE_WRITE}
            and all(_amount(v) for v in value.values()))


def valid_models(value: Any) -> bool:
    """A provider's prices: model name → price, at most MODELS_MAX of them."""
    return (isinstance(value, dict) and len(value) <= MODELS_MAX
            and all(isinstance(m, str) and 0 < len(m) <= 200 and not any(c.isspace() for c in m) and m.isprintable()
                    and valid_price(p) for m, p in value.items()))


def frozen_prices(value: Mapping[str, Any]) -> dict[str, dict[str, dict[str, float]]]:
    """A checked table as plain dicts of floats (so ``3`` and ``3.0`` read alike), with Anthropic's
    cache-write price filled in where a row has none (``with_cache_write``)."""
    return {prov: {m: with_cache_write(prov, {f: float(v) for f, v in p.items()}) for m, p in models.items()}
            for prov, models in value.items()}


def with_cache_write(provider: str, row: dict[str, float]) -> dict[str, float]:
    """A row saved before the cache-write column existed keeps every value; an Anthropic row gains
    1.25 × its input price (Anthropic's published rule), any other stays without one (unknown)."""
    if provider == "anthropic" and CACHE_WRITE not in row:
        row[CACHE_WRITE] = min(PRICE_MAX, round(row["input"] * ANTHROPIC_CACHE_WRITE, 6))
    return row


def money(amount: float) -> str:
    """An amount in words on screen: ``$0.42``, ``$12.30``, below a cent ``<$0.01``."""
    if amount <= 0:
        return "$0.00"
    if amount < 0.01:
        return "<$0.01"
    return f"${amount:,.2f}"


def _amount(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 <= v <= PRICE_MAX
