"""Summaries the facade gives out and lower rooms compute: a History row and today's spend.

Plain frozen data, kept in the vocabulary so the rooms that build them
(``agents.restore``, ``accounting.spend``) never import ``kernel.api``, which
re-exports them for the desktop and the service's codec.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HistoryItem:
    """An agent out of the process table (archived, or killed), as History lists it. ``cost`` is
    None when its model has no price (tokens only)."""

    id: str
    name: str
    first_prompt: str
    started_at: float
    last_at: float
    input_tokens: int
    output_tokens: int
    cost: float | None
    provider: str
    model: str
    archived: bool
    killed: bool
    served: tuple[str, ...] = ()  # model routes: other models that answered it ("openai:gpt-5"), first first

    def matches(self, query: str) -> bool:
        """Whether a search for ``query`` (words, any case) finds it by id, name, first prompt or model."""
        text = " ".join((self.id, self.name, self.first_prompt, self.model, *self.served)).casefold()
        return all(word in text for word in query.casefold().split())


@dataclass(frozen=True)
class Spend:
    """Tokens and money of today's provider requests; ``unpriced_tokens`` are those of models
    without a price (counted in ``tokens``, never in ``cost``)."""

    tokens: int = 0
    cost: float = 0.0
    unpriced_tokens: int = 0
