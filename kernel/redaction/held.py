"""The secrets the kernel holds, so the record can be kept free of them by exact match.

Provider and search keys from keys.json and the environment are added when
the kernel is built; other parts (MCP servers, mail accounts) add theirs with
``add`` when they load them. Matching is one alternation of the escaped
values, longest first (about 4 µs per KB, LIBRARIES.md §7), rebuilt only when
a value is added; a value that URL-encoding changes is matched in its encoded
forms too (most keys are letters, digits, ``-`` and ``_``, and cost nothing more). A value shorter than ``MIN_SECRET`` is not held: redacting
every "abc" in the record would ruin it and protect nothing.
"""

from __future__ import annotations

import re
import threading
from typing import Iterable, Mapping
from urllib.parse import quote

MIN_SECRET = 8
HELD_RULE = "held-secret"
_LOWER_HEX = re.compile(r"%[0-9A-F]{2}")
# Environment variables that hold secrets by their name's ending (ANTHROPIC_API_KEY, GITHUB_TOKEN, …).
_SECRET_VARIABLE = re.compile(r"(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|PAT|CREDENTIALS?)$", re.I)


def _looks_random(value: str) -> bool:
    """At least two kinds of character (lower, upper, digit, other), and not a path."""
    if value.startswith(("/", "~", "./")):
        return False
    kinds = (any(c.islower() for c in value), any(c.isupper() for c in value), any(c.isdigit() for c in value),
             any(not c.isalnum() for c in value))
    return sum(kinds) >= 2


def is_secret_variable(name: str) -> bool:
    """An environment variable whose name says it holds a secret (``ANTHROPIC_API_KEY``, ``GITHUB_TOKEN``)."""
    return _SECRET_VARIABLE.search(name) is not None


def url_forms(value: str) -> set[str]:
    """``value`` and the ways a URL carries it (``/`` → ``%2F`` or kept, hex in either case): a key
    with ``/``, ``+`` or ``=`` in a query string must not slip past an exact match."""
    forms = {value}
    for encoded in (quote(value, safe=""), quote(value)):
        forms |= {encoded, _LOWER_HEX.sub(lambda m: m.group().lower(), encoded)}
    return forms


class SecretRegistry:
    """Secret values by label; ``find`` gives their spans in a text."""

    def __init__(self, values: Iterable[tuple[str, str]] = ()) -> None:
        self._values: dict[str, str] = {}  # value -> label (the label never reaches the record)
        self._pattern: re.Pattern[str] | None = None
        self._lock = threading.Lock()
        for label, value in values:
            self.add(value, label)

    def add(self, value: str | None, label: str = "secret") -> bool:
        """Hold ``value`` from now on; False (not held) when it is empty or too short to match safely."""
        if not isinstance(value, str) or len(value.strip()) < MIN_SECRET:
            return False
        with self._lock:
            if value not in self._values:
                self._values[value] = label
                self._pattern = None
        return True

    def add_environment(self, env: Mapping[str, str]) -> int:
        """Hold every variable of ``env`` whose name says it is a secret and whose value looks like one
        (not a path, not a plain word: ``SOME_KEY=production`` must not redact "production" everywhere)."""
        return sum(self.add(value, name) for name, value in env.items()
                   if _SECRET_VARIABLE.search(name) and _looks_random(value))

    def items(self) -> list[tuple[str, str]]:
        """(label, value) for every held value."""
        with self._lock:
            return [(label, value) for value, label in self._values.items()]

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, value: object) -> bool:
        return value in self._values

    def find(self, text: str) -> list[tuple[int, int]]:
        """Spans of held values in ``text``, left to right, longest value first where they overlap."""
        pattern = self._pattern
        if pattern is None:
            with self._lock:
                if not self._values:
                    return []
                values = sorted({form for v in self._values for form in url_forms(v)}, key=len, reverse=True)
                pattern = self._pattern = re.compile("|".join(map(re.escape, values)))
        return [m.span() for m in pattern.finditer(text)]
