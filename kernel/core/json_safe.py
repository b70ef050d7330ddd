"""Text and JSON values a model sent, checked and made safe to keep, send and show: a leaf.

What a model sends as tool arguments comes back in every later request, goes
into the ledger and onto the screen, so it must survive ``json.dumps`` and
UTF-8 encoding in all of those places. Python's ``json.loads`` accepts more
than any of them will take (measured 2026-12-01, Python 3.11, through the real
SDKs and the loopback fake):

- nesting 100,000 levels deep raised ``RecursionError`` in the parser and the
  agent failed as an internal error (``agentdesk ask`` exit 4);
- a ``"\\ud800"`` escape is a lone surrogate, which no UTF-8 encoder takes:
  the call was refused, and the next request failed to encode, so the agent
  died;
- ``NaN``, ``Infinity`` and ``1e400`` (read as ``inf``) made the Anthropic SDK
  refuse the next request ("Out of range float values are not JSON compliant").

``problem`` names the first of these in a value without recursing (so any
depth is safe to look at); ``sanitised`` is a copy free of all of them, for
the conversation; ``clean_text`` replaces lone surrogates with U+FFFD; and
``clipped`` keeps a head and a tail of a long text. It imports nothing of the
kernel: messages (``core.messages``), the secret-aware cuts (``redaction.cuts``)
and what is done with untrusted text (``trust.untrusted``) all build on it.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping

MAX_DEPTH = 64          # levels of lists and objects; the built-in tools need 2
MAX_INT_BITS = 13_000   # about 4,000 digits: Python will not turn a longer int into text (sys.int_info)
_SURROGATE = re.compile("[\ud800-\udfff]")


def _surrogate_in(text: str) -> str | None:
    """The first lone surrogate in ``text``, or None. Encoding is the fastest test Python has:
    about 2.5 times faster than a regular expression on non-ASCII text (2026-12-01)."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return text[exc.start]
    return None


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (the same object when there is none)."""
    if _surrogate_in(text) is None:
        return text
    return _SURROGATE.sub("\ufffd", text)


def clipped(text: str, limit: int) -> str:
    """``text`` if it is at most ``limit`` characters, else its head and tail around a note of its length
    (a plain cut: ``trust.untrusted.capped`` moves a cut off a secret that crosses it)."""
    if len(text) <= limit:
        return text
    note, head, tail = cut_plan(text, limit)
    return text[:head] + note + (text[-tail:] if tail else "")


def cut_plan(text: str, limit: int) -> tuple[str, int, int]:
    """The note that stands for the cut middle of ``text``, and how many characters of its head and tail stay."""
    note = f" … ({len(text):,} characters; the middle is cut) … "
    tail = max(0, limit // 5)
    return note, max(0, limit - tail - len(note)), tail


def _escape(char: str) -> str:
    return f"\\u{ord(char):04x}"


def problem(value: Any, what: str = "the arguments") -> str | None:
    """Why ``value`` is not a JSON value every encoder can take, or None. Never recurses.

    Exact types are tested first: a typical call's arguments are checked in about 2 µs."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is str:
            if not item.isascii() and (bad := _surrogate_in(item)) is not None:
                return f"{what} hold a lone surrogate ({_escape(bad)}), which is not text"
        elif kind is int:
            if item.bit_length() > MAX_INT_BITS:
                return f"{what} hold a number too large to use ({item.bit_length():,} bits)"
        elif item is None or kind is bool:
            continue
        elif kind is float:
            if not math.isfinite(item):
                return f"{what} hold {item!r}, which JSON does not allow (NaN, Infinity or a number too large)"
        elif kind is dict or kind is list or isinstance(item, (Mapping, list, tuple)):
            if depth >= MAX_DEPTH:
                return f"{what} are nested more than {MAX_DEPTH} levels deep"
            depth += 1
            if kind is dict or isinstance(item, Mapping):
                for key in item:
                    if type(key) is not str:
                        return f"{what} have a key that is not text ({type(key).__name__})"
                    if not key.isascii() and (bad := _surrogate_in(key)) is not None:
                        return f"{what} hold a lone surrogate ({_escape(bad)}), which is not text"
                stack.extend([(v, depth) for v in item.values()])
            else:
                stack.extend([(v, depth) for v in item])
        elif isinstance(item, (str, int, float)):  # subclasses: judged as what they are
            stack.append((str(item) if isinstance(item, str) else float(item) if isinstance(item, float)
                          else int(item), depth))
        else:
            return f"{what} hold a {type(item).__name__}, which is not a JSON value"
    return None


def object_problem(value: Any) -> str | None:
    """Why ``value`` cannot be a tool call's input (a JSON object every encoder can take), or None."""
    if type(value) is not dict and not isinstance(value, Mapping):
        return f"tool arguments must be a JSON object, not {_json_type(value)}"
    return problem(value)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    return f"a {type(value).__name__}"


def sanitised(value: Any, depth: int = 0) -> Any:
    """A copy of ``value`` that ``problem`` finds nothing in: text cleaned, non-finite numbers and
    what lies deeper than ``MAX_DEPTH`` replaced by a short note. Recursion stops at ``MAX_DEPTH``."""
    if isinstance(value, str):
        return clean_text(value)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if value.bit_length() <= MAX_INT_BITS else f"(a {value.bit_length():,}-bit number)"
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, (Mapping, list, tuple)):
        if depth >= MAX_DEPTH:
            return f"(nested more than {MAX_DEPTH} levels deep)"
        if isinstance(value, Mapping):
            return {clean_text(k if isinstance(k, str) else repr(k)): sanitised(v, depth + 1)
                    for k, v in value.items()}
        return [sanitised(v, depth + 1) for v in value]
    return clean_text(clipped(repr(value), 200))
