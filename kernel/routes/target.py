"""A (provider, model) pair: one candidate on a route, and the vendor it sends the conversation to.

A vendor is the company that receives the conversation. Each provider of the
catalog counts as its own vendor, with one exception-free rule: ``openai`` and
``openai-chat`` are different vendors too, because ``openai-chat`` is how any
OpenAI-compatible server is reached (a local one, or another company's), and
the kernel cannot tell from the name which it is. So a route that mixes them
needs the same opt-in as one that mixes Anthropic and Gemini: erring towards
asking is the safe side when the conversation would leave for another company.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.errors import ConfigError

if TYPE_CHECKING:  # a field's type only: the settings' schema parses targets, and the desktop's first screen
    from ..providers.retry import RetryLimits  # reads the settings without the provider layer (issue 28)

MODEL_MAX = 200


@dataclass(frozen=True)
class Target:
    """Where a request is sent: a provider of the catalog and a model it serves."""

    provider: str
    model: str

    @property
    def vendor(self) -> str:
        return self.provider

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}"


@dataclass(frozen=True)
class Attempt:
    """The candidate a request is sent to: ``number`` counts the route's candidates tried for this
    reply (1: the first), ``reason`` says why this one ("" on the primary), ``route`` is ``agent``
    or ``utility``; ``requested`` is what the agent (or the housekeeping call) asked for."""

    target: Target
    requested: Target
    number: int = 1
    reason: str = ""
    route: str = "agent"
    limits: RetryLimits | None = None  # a probe goes without retries; a candidate with others after it
    # gives up at once when the server asks for a wait beyond the retry cap


def parse_target(text: str, providers: tuple[str, ...]) -> Target:
    """``provider:model`` (as ``--fallback`` and settings write it) as a Target, or a ConfigError
    naming what is wrong. Hostile input: the model must be a short printable word."""
    provider, sep, model = text.strip().partition(":")
    if not sep or not model:
        raise ConfigError(f"a fallback is written provider:model (found {text!r})", "fallback")
    if provider not in providers:
        raise ConfigError(f"unknown provider {provider!r} in fallback {text!r}: choose one of "
                          f"{', '.join(providers)}", "fallback")
    if len(model) > MODEL_MAX or not model.isprintable() or any(c.isspace() for c in model):
        raise ConfigError(f"the model in fallback {text[:80]!r} must be a short name without spaces", "fallback")
    return Target(provider, model)
