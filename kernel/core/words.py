"""Counts and numbers as people read them, shared by the CLI and the desktop.

The desktop may import the kernel but not the reverse, so the few helpers
both say things with live here. "1 conflicts", "2 agent(s)" and a 14,600
token count shown as "14k" were each written by hand in a different view
(found 2025-06 in the desk review); every view now says it through these.
"""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 entry``/``2 entries`` with grouped digits (``many`` for irregular plurals)."""
    return f"{count:,} {word if count == 1 else (many or _plural_of(word))}"


def _plural_of(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u"):
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def grouped(n: int) -> str:
    """``11,500``: thousands grouped, always."""
    return f"{n:,}"


def short_number(n: int) -> str:
    """A compact count that rounds, never truncates: 950 → "950", 14,600 → "14.6k", 41,200 → "41.2k",
    155,400 → "155k", 999,600 → "1M", 1,250,000 → "1.3M" (half away from zero)."""
    if n < 0:
        return "-" + short_number(-n)
    if n < 1000:
        return str(n)
    for unit, size in (("k", 1_000), ("M", 1_000_000), ("G", 1_000_000_000)):
        value = n / size
        digits = 1 if value < 99.95 else 0
        shown = _round_half_up(value, digits)
        if shown < 1000 or unit == "G":
            text = f"{shown:.{digits}f}"
            return (text[:-2] if text.endswith(".0") else text) + unit
    return str(n)  # unreachable


def _round_half_up(value: float, digits: int) -> float:
    scale: int = 10 ** digits
    return int(value * scale + 0.5) / scale
