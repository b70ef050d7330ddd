"""Cutting text that may hold a secret: a secret that crosses the cut goes whole, never half.

Long output is capped (a shell command's head and tail, an MCP result, an
error that quotes megabytes, a web page cut at the size cap) before it is
recorded, and the ledger's redactor then runs over what was kept. A held key
or token that straddled a cut left its first (or last) characters behind,
and no rule matches a fragment. So before cutting, the text around each cut
(``MARGIN`` characters past it: longer than any secret the rules know) is
searched, and the cut moves back (a head) or forward (a tail) to the start
(end) of any secret crossing it, with that secret's marker in its place.
Everything kept stays as it was, so the ledger's single pass over the whole
entry still catches the secrets that lie wholly inside it.

What no cut-time search can catch is a secret split across two separate
entries (half in one tool input, half in the next); the user guide says so
(docs/user-guide.md, "Secrets are kept out of the ledger").
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..core.json_safe import clean_text

MARGIN = 4096  # characters searched past a cut


@runtime_checkable
class Spans(Protocol):
    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, rule) of every secret in ``text``."""
        ...


def head(text: str, keep: int, finder: Spans | None) -> str:
    """``text[:keep]``; a secret crossing ``keep`` is cut off at its start and named by its marker."""
    if finder is None or len(text) <= keep:
        return text[:keep]
    spans = finder.spans(clean_text(text[:keep + MARGIN]))  # (same length: positions still match)
    cut, rule = keep, None
    while True:  # a secret crossing the cut moves it back; an earlier one may then cross the new cut
        crossing = [(s, r) for s, e, r in spans if s < cut < e]
        if not crossing:
            break
        cut, rule = min(crossing)
    return text[:cut] if rule is None else f"{text[:cut]}[REDACTED:{rule}]"


def tail(text: str, keep: int, finder: Spans | None) -> str:
    """``text[-keep:]``; a secret crossing the start of it is cut off at its end and named by its marker."""
    if keep <= 0:
        return ""
    if finder is None or len(text) <= keep:
        return text[-keep:]
    offset = max(0, len(text) - keep - MARGIN)
    spans = finder.spans(clean_text(text[offset:]))
    cut, rule = len(text) - keep - offset, None
    while True:
        crossing = [(e, r) for s, e, r in spans if s < cut < e]
        if not crossing:
            break
        cut, rule = max(crossing)
    return text[offset + cut:] if rule is None else f"[REDACTED:{rule}]{text[offset + cut:]}"


def finder_of(redactor: object) -> Spans | None:
    """``redactor`` when it can say where secrets are (the kernel's ``Redactor``); else None."""
    return redactor if isinstance(redactor, Spans) else None


def head_bytes(kept: bytes, beyond: bytes, finder: Spans | None) -> bytes:
    """``kept``, the first bytes of a longer stream (``beyond``: the bytes after it), with a secret that
    crosses its end cut off at its start and named by its marker. Other bytes stay exactly as they were."""
    if finder is None or not beyond:
        return kept
    near = kept[-MARGIN:]
    text = (near + beyond).decode("utf-8", "surrogateescape")
    keep = len(near.decode("utf-8", "surrogateescape"))
    return kept[:len(kept) - len(near)] + head(text, keep, finder).encode("utf-8", "surrogateescape")
