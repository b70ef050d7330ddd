"""What an agent's tokens cost when more than one model answered it (model routes).

Tokens count the same whichever model served them (the budget is tokens);
money does not: each request is priced as the model that answered it. That
is the served model when the price table names it (a provider may answer
an alias with a dated snapshot that has a price of its own), else the model
the request was sent to. An agent keeps its finished requests' usage per
priced model; whatever is not there yet (the request in flight) is priced
as its primary. One model without a price makes the whole sum unknown: a
partial figure would read as the full one.
"""

from __future__ import annotations

from typing import Mapping

from .budget import Usage
from .prices import cost_of, price_of

PriceTable = Mapping[str, Mapping[str, Mapping[str, float]]]
Model = tuple[str, str]


def priced_as(table: PriceTable, provider: str, model: str, served_provider: object, served_model: object) -> Model:
    """The (provider, model) a request is priced as: the served one when the table names it."""
    if isinstance(served_provider, str) and isinstance(served_model, str) \
            and price_of(table, served_provider, served_model) is not None:
        return served_provider, served_model
    return provider, model


def by_price(table: PriceTable, served: Mapping[tuple[str, str, str | None, str | None], Usage]) -> dict[Model, Usage]:
    """Usage per (sent to, served by) regrouped per model it is priced as."""
    out: dict[Model, Usage] = {}
    for (provider, model, served_provider, served_model), usage in served.items():
        key = priced_as(table, provider, model, served_provider, served_model)
        out[key] = out.get(key, Usage()) + usage
    return out


def mixed_cost(table: PriceTable, primary: Model, used: Usage, priced: Mapping[Model, Usage]) -> float | None:
    """The money of ``used`` tokens: ``priced`` per model, the rest at the primary's price."""
    rest = used
    total = 0.0
    for (provider, model), usage in priced.items():
        cost = cost_of(table, provider, model, usage.input_tokens, usage.output_tokens, usage.cached_tokens,
                       usage.written_tokens)
        if cost is None and usage.total:
            return None
        total += cost or 0.0
        rest = _less(rest, usage)
    cost = cost_of(table, *primary, rest.input_tokens, rest.output_tokens, rest.cached_tokens, rest.written_tokens)
    if cost is None:
        return None if rest.total or not priced else total
    return total + cost


def _less(a: Usage, b: Usage) -> Usage:
    return Usage(max(0, a.input_tokens - b.input_tokens), max(0, a.output_tokens - b.output_tokens),
                 max(0, a.cached_tokens - b.cached_tokens), max(0, a.written_tokens - b.written_tokens))
