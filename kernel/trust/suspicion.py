"""What in a risky call came from untrusted content, and what looks like an injection.

A prompt injection shows itself in the arguments of the outward call it
asks for: a URL or address copied from the fetched page, a download piped
into a shell, a base64 blob decoded and run. ``highlights`` finds the
argument pieces that appear in what the agent read from untrusted sources
(the dialog marks them); ``flags`` names the obvious patterns, in words. Both
are hints for the person confirming, never a decision.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, Sequence

MIN_PIECE = 6           # shorter pieces match too much by chance
MAX_WHOLE_VALUE = 300   # a whole argument value this short is looked for as it is
_URL = re.compile(r"\bhttps?://[^\s\"'<>()\[\]{}|`]+", re.IGNORECASE)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_HOST = re.compile(r"\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}\b", re.IGNORECASE)
_IP = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")
_PIPE_TO_SHELL = re.compile(
    r"\b(?:curl|wget|fetch)\b[^\n;&]*\|\s*(?:sudo\s+)?(?:env\s+)?(?:ba|z|k|da|fi)?sh\b"
    r"|\b(?:ba|z|k|da)?sh\s+(?:-c\s+)?[\"']?\$\(\s*(?:curl|wget)\b"
    r"|\b(?:ba|z|k|da)?sh\s+<\(\s*(?:curl|wget)\b"
    r"|\b(?:curl|wget)\b[^\n;&]*\|\s*(?:python\d?|perl|ruby|node)\b", re.IGNORECASE)
_B64_EXEC = re.compile(
    r"base64\s+(?:-d|--decode|-D)\b[^\n;&]*\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b"
    r"|\beval\b[^\n]*base64\s+(?:-d|--decode|-D)"
    r"|\b(?:exec|eval)\s*\(\s*(?:base64\.)?b64decode"
    r"|base64\s+(?:-d|--decode|-D)\b[^\n;&]*\|\s*(?:python\d?|perl|ruby|node)\b", re.IGNORECASE)


def strings_in(value: Any, limit: int = 1000) -> list[str]:
    """The text values in a call's arguments (keys left out), at most ``limit`` of them."""
    out: list[str] = []
    stack = [value]
    while stack and len(out) < limit:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Mapping):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
    return out


def pieces(text: str) -> list[str]:
    """The parts of an argument worth looking for elsewhere: URLs, addresses, host names, IPs."""
    found: list[str] = []
    for pattern in (_URL, _EMAIL, _HOST, _IP):
        for match in pattern.finditer(text):
            piece = match.group(0).rstrip(".,;:")
            if len(piece) >= MIN_PIECE and piece not in found and not any(piece in f for f in found):
                found.append(piece)
    return found


def highlights(tool_input: Mapping[str, Any], untrusted: Sequence[str]) -> tuple[str, ...]:
    """Pieces of the arguments (or whole short values) that appear in the untrusted content read."""
    if not untrusted:
        return ()
    lowered = [u.lower() for u in untrusted]
    out: list[str] = []
    for value in strings_in(tool_input):
        candidates = pieces(value)
        if MIN_PIECE <= len(value.strip()) <= MAX_WHOLE_VALUE:
            candidates.insert(0, value.strip())
        for piece in candidates:
            low = piece.lower()
            if piece not in out and not any(piece in o for o in out) and any(low in u for u in lowered):
                out.append(piece)
    return tuple(out)


def flags(tool_input: Mapping[str, Any], untrusted: Sequence[str], trusted: Iterable[str] = ()) -> tuple[str, ...]:
    """Obvious injection patterns in a risky call's arguments, in words."""
    out: list[str] = []
    texts = strings_in(tool_input)
    if any(_PIPE_TO_SHELL.search(t) for t in texts):
        out.append("pipes a download straight into a shell or interpreter")
    if any(_B64_EXEC.search(t) for t in texts):
        out.append("decodes base64 and runs the result")
    if untrusted:
        own = "\n".join(trusted).lower()
        lowered = [u.lower() for u in untrusted]
        for text in texts:
            for piece in pieces(text):
                low = piece.lower()
                if low not in own and any(low in u for u in lowered):
                    verb = "sends to" if "@" in piece and "://" not in piece else "uses"
                    note = f"{verb} {piece}, seen only in untrusted content"
                    if note not in out:
                        out.append(note)
    return tuple(out)
