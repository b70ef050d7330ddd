"""Who answered, in words: what ``agentdesk show``, History and the Ask window say of a reply.

Said only when the model that answered is not the one the agent asked for.
A dated snapshot of the same model (``claude-sonnet-4-5-20250929`` for
``claude-sonnet-4-5``) is how providers answer an alias, so it is not worth
a line on every reply: another provider, or a name that does not start with
the one asked for, is.
"""

from __future__ import annotations

from typing import Any


def answered_by(entry: Any) -> str:
    """``answered by openai:gpt-5 (fallback after anthropic overloaded ×3)``, or "" (a ``request`` entry;
    hostile input: fields of the wrong type say nothing)."""
    provider, model = getattr(entry, "served_provider", None), getattr(entry, "served_model", None)
    asked_provider = getattr(entry, "requested_provider", "") or getattr(entry, "provider", "")
    asked_model = getattr(entry, "requested_model", "") or getattr(entry, "model", "")
    if not (isinstance(provider, str) and isinstance(model, str) and isinstance(asked_provider, str)
            and isinstance(asked_model, str)):
        return ""
    if not another_model(asked_provider, asked_model, provider, model):
        return ""
    reason = getattr(entry, "route_reason", "")
    why = f" ({reason})" if isinstance(reason, str) and reason else ""
    return f"answered by {provider}:{model}{why}"


def another_model(asked_provider: str, asked_model: str, provider: str, model: str) -> bool:
    """Whether ``provider:model`` answered instead of the model asked for (its dated snapshot does not count)."""
    return not (provider == asked_provider and model.startswith(asked_model))
