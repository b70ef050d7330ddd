"""Token budgets as data with checks, called before each model request.

Input and output tokens both count. Providers report usage at different
moments (Anthropic: input at the start of a stream and output at its end;
the others: both at the end), so a request's usage is kept apart and
replaced field by field until the request is over, then folded into the
total.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0  # of input_tokens, read from the provider's cache (priced apart, counted alike)
    written_tokens: int = 0  # of input_tokens, written to the provider's cache (priced apart, counted alike)

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens,
                     self.cached_tokens + other.cached_tokens, self.written_tokens + other.written_tokens)


@dataclass(frozen=True)
class Budget:
    limit: int
    spent: Usage = Usage()        # finished requests
    current: Usage = Usage()      # the request in flight, as last reported

    @property
    def used(self) -> Usage:
        return self.spent + self.current

    @property
    def reached(self) -> bool:
        """At or over the limit: the agent must not start another request."""
        return self.used.total >= self.limit

    @property
    def left(self) -> int:
        return max(0, self.limit - self.used.total)

    def report(self, input_tokens: int | None, output_tokens: int | None,
               cached_tokens: int | None = None, written_tokens: int | None = None) -> "Budget":
        """The in-flight request's usage so far (None keeps what was reported before)."""
        cur = self.current
        return replace(self, current=Usage(
            cur.input_tokens if input_tokens is None else input_tokens,
            cur.output_tokens if output_tokens is None else output_tokens,
            cur.cached_tokens if cached_tokens is None else cached_tokens,
            cur.written_tokens if written_tokens is None else written_tokens,
        ))

    def settle(self) -> "Budget":
        """The in-flight request is over (finished or failed): fold it into the total."""
        return replace(self, spent=self.used, current=Usage())

    def raised_to(self, limit: int) -> "Budget":
        if limit <= 0:
            raise ValueError("a budget must be a positive number of tokens")
        return replace(self, limit=limit)

    def describe(self) -> str:
        return f"budget reached: {self.used.total:,} of {self.limit:,} tokens used"
