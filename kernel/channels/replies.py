"""Long replies are split at the channel's limit, at a paragraph or line break where one is near."""

from __future__ import annotations


def split(text: str, limit: int) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, none empty (an empty text is one "…")."""
    if limit < 16:
        raise ValueError("a message limit under 16 characters")
    text = text.strip() or "…"
    parts: list[str] = []
    while len(text) > limit:
        cut = next((c for c in (text.rfind(sep, 0, limit) for sep in ("\n\n", "\n", " ")) if c >= limit // 2),
                   limit)  # a paragraph break, else a line break, else a space, in the second half; else hard
        parts.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    parts.append(text)
    return [p for p in parts if p]
