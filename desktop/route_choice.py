"""An agent's route as chosen in a new Ask window, before its first message: checked, in words.

Plain Python (no Qt), so the rules are tested without a window. The form
offers the providers that are configured (a key, or a local server's base
URL: ``provider_problem`` says None), the model of each from Settings, and
the fallbacks as ``provider:model`` in order — the same words as ``agentdesk
ask --fallback`` and Settings → Models. Left empty, the fallbacks are
Settings' default route for that provider (``None`` to the kernel, which
applies it as for every Ctrl+N agent); ``none`` asks for no fallback at all.
A fallback at another vendor is refused here unless the person ticked
"allow another vendor", with the sentence the form shows; the kernel's spawn
refuses it too, so no window can send a conversation elsewhere by mistake.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

NONE_WORD = "none"
MAX_FALLBACKS = 8  # the kernel's limit (kernel/routes/route.py)
ANOTHER_VENDOR = ("A fallback at another vendor is sent this whole conversation: "
                  "it goes to another company than the model's.")


@dataclass(frozen=True)
class RouteChoice:
    """What ``spawn`` is given: ``fallbacks`` None means Settings' default route for ``provider``."""

    provider: str
    model: str
    fallbacks: tuple[str, ...] | None
    any_vendor: bool = False


def configured(providers: Sequence[str], problem: Callable[[str], str | None]) -> list[str]:
    """The providers a request can be sent to now (a key, or a local server's base URL)."""
    return [p for p in providers if problem(p) is None]


def read_fallbacks(text: str) -> tuple[str, ...] | None:
    """The field as written: None (empty: Settings' default), () for ``none``, else the names in order."""
    words = [w for w in text.replace(",", " ").split() if w]
    if not words:
        return None
    if [w.casefold() for w in words] == [NONE_WORD]:
        return ()
    return tuple(words)


def check_choice(provider: str, model: str, fallbacks_text: str, any_vendor: bool,
                 usable: Sequence[str]) -> RouteChoice | str:
    """The route, or why it cannot be used, in a sentence for the form."""
    model = model.strip()
    if provider not in usable:
        return f"{provider or 'No provider'} is not configured: add its key in Settings \u2192 Providers."
    if not model or any(c.isspace() for c in model) or not model.isprintable() or len(model) > 200:
        return "Write the model's name (no spaces), as in Settings \u2192 Models."
    fallbacks = read_fallbacks(fallbacks_text)
    if fallbacks and len(fallbacks) > MAX_FALLBACKS:
        return f"At most {MAX_FALLBACKS} fallbacks."
    for name in fallbacks or ():
        other, sep, its_model = name.partition(":")
        if not sep or not its_model:
            return f"Write each fallback as provider:model (found \u201c{name[:80]}\u201d)."
        if other not in usable:
            return (f"{other} in \u201c{name[:80]}\u201d is not a configured provider: choose one of "
                    f"{', '.join(usable)}.")
        if other != provider and not any_vendor:
            return (f"{name} is at another vendor than {provider}: tick \u201cAllow another vendor\u201d "
                    "to send the conversation there, or choose a model of " + provider + ".")
    return RouteChoice(provider, model, fallbacks, any_vendor)


def default_words(provider: str, defaults: Sequence[str], any_vendor: bool) -> str:
    """What an empty fallbacks field stands for, for its placeholder."""
    kept = [d for d in defaults if any_vendor or d.partition(":")[0] == provider]
    if not kept:
        return "no fallback (Settings \u2192 Models has none for this provider); provider:model, in order"
    return "Settings\u2019 default: " + ", ".join(kept) + " (provider:model, in order; none: no fallback)"
