"""Text an untrusted source sent (a model, a tool, a server), cut short safely for a message or an error.

An error that quotes megabytes (a 10 MB bad path came back whole and
exhausted the budget) is kept to a couple of thousand characters by
``capped``; given the redactor, it cuts around a secret that crosses a cut
instead of through it (``redaction.cuts``). ``quoted`` is such a text quoted
for a message. The checks that make a value safe to keep, send and show
(lone surrogates, depth, non-finite numbers) are the leaf ``core.json_safe``.
"""

from __future__ import annotations

from ..core.json_safe import cut_plan
from ..redaction import cuts

ERROR_MAX_CHARS = 2_000  # what an error result may quote, at most


def capped(text: str, limit: int = ERROR_MAX_CHARS, finder: cuts.Spans | None = None) -> str:
    """``text`` if it is at most ``limit`` characters, else its head and tail around a note of its length.
    With ``finder`` (the kernel's redactor), a secret crossing a cut is dropped whole (``redaction.cuts``)."""
    if len(text) <= limit:
        return text
    note, head, tail = cut_plan(text, limit)
    if finder is not None:
        return cuts.head(text, head, finder) + note + cuts.tail(text, tail, finder)
    return text[:head] + note + (text[-tail:] if tail else "")


def quoted(text: str, limit: int = 200) -> str:
    """``text`` quoted for a message, at most about ``limit`` characters of it, lone surrogates escaped."""
    return repr(capped(text, limit))
