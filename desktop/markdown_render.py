"""Markdown to the HTML subset Qt's rich text understands, safe to call mid-stream.

A reply arrives in pieces, so a code fence may be open when we render: it is
closed for the render only, so half a code block already looks like code.
Raw HTML from the model is escaped (the model's text is not trusted markup).
A single line of prose with nothing Markdown could read as markup (the
usual streaming tail) skips the converter: it can only become one ``<p>``.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

import markdown

_EXTENSIONS = ["fenced_code", "tables", "sane_lists", "nl2br"]
_FENCE = re.compile(r"^\s{0,3}(```|~~~)", re.MULTILINE)
_MARKUP = re.compile(r"[\\`*_\[\]<>&|~\n\t]")           # characters with a meaning anywhere in a line
_BLOCK_START = re.compile(r"\s|[#\-+*>=]|\d+[.)]")   # what could open a heading, list, quote, rule or code


def is_plain_line(text: str) -> bool:
    """True when ``text`` is one line of prose that Markdown renders as a plain paragraph."""
    body = text.rstrip(" ")
    return bool(body) and not _MARKUP.search(body) and not _BLOCK_START.match(body)


def close_open_fence(text: str) -> str:
    """``text`` with an unterminated code fence closed (for rendering a partial reply)."""
    fences = _FENCE.findall(text)
    if len(fences) % 2 == 1:
        fence: str = fences[-1]
        return text + ("\n" if not text.endswith("\n") else "") + fence + "\n"
    return text


@lru_cache(maxsize=1)
def _converter() -> markdown.Markdown:
    """One configured converter, reused (building one costs more than converting a paragraph)."""
    md = markdown.Markdown(extensions=_EXTENSIONS)
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return md


def render_markdown(text: str, code_background: str = "#f0f0f0") -> str:
    """HTML for one block of (possibly partial) Markdown."""
    if is_plain_line(text):
        return f"<p>{html.escape(text, quote=False)}</p>"
    md = _converter()
    md.reset()
    body = md.convert(close_open_fence(_escape_html(text)))
    body = body.replace("\n</code></pre>", "</code></pre>")
    return body.replace("<pre>", f'<pre style="background-color:{code_background}; padding:4px;">')


def _escape_html(text: str) -> str:
    """Escape ``<`` and ``&`` outside code so raw HTML shows as text (code spans are escaped by markdown)."""
    out, in_fence = [], False
    for line in text.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
            out.append(line)
        elif in_fence:
            out.append(line)
        else:
            out.append(_escape_outside_backticks(line))
    return "\n".join(out)


def _escape_outside_backticks(line: str) -> str:
    parts = line.split("`")
    for i in range(0, len(parts), 2):  # even pieces are outside inline code
        parts[i] = html.escape(parts[i], quote=False).replace("&gt;", ">")  # keep > for blockquotes
    return "`".join(parts)


def settled_length(text: str, start: int = 0) -> int:
    """How much of a streaming reply (from ``start``, a settled point) can no longer change its rendering.

    A blank line outside a code fence, followed by the start of an unindented
    line, ends every Markdown block before it: what precedes it renders the
    same whatever arrives next, so it can be rendered once and left alone.
    Returns the offset of the last such point (``start`` when there is none).
    """
    pos, last, in_fence, blank_before = start, start, False, False
    for line in text[start:].splitlines(keepends=True):
        starts_block = blank_before and not in_fence and line.strip() != "" and not line[:1].isspace()
        if starts_block:
            last = pos
        if not line.endswith("\n"):
            break
        if _FENCE.match(line):
            in_fence, blank_before = not in_fence, False
        elif not line.strip():
            blank_before = not in_fence
        else:
            blank_before = False
        pos += len(line)
    return last
