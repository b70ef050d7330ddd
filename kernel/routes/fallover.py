"""When a failed request may be answered by the next model on the route, and the words for why.

Only failures that say the model is unavailable fall over: overloaded,
rate-limited, a server error, a timeout, no connection (offline) and an
unknown model. Never a rejected key or a malformed request (the next model
would be refused the same way, or the user must fix something), and never a
reply that had started: what the user already saw must not be generated
twice by another model. The same kinds count against the model's breaker.
"""

from __future__ import annotations

from ..core.errors import ProviderError

FALL_OVER_KINDS = frozenset({"overloaded", "rate_limit", "server", "timeout", "connection", "not_found"})

KIND_WORDS = {"overloaded": "overloaded", "rate_limit": "rate-limited", "server": "server error",
              "timeout": "timed out", "connection": "offline", "not_found": "unknown model"}


def falls_over(error: ProviderError) -> bool:
    """Whether another model on the route may answer instead."""
    return not error.started and error.kind in FALL_OVER_KINDS


def failure_words(error: ProviderError) -> str:
    """``anthropic overloaded ×3``: who failed, how, and how many tries it took."""
    tries = f" ×{error.attempts}" if error.attempts > 1 else ""
    return f"{error.provider} {KIND_WORDS.get(error.kind, error.kind)}{tries}"
