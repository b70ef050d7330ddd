"""A page's markup cut down to what the HTML-to-Markdown conversion can take, before it takes it.

readability-lxml and markdownify (through BeautifulSoup) hold a Python object or
several per element, and their time grows faster than the page: one hostile
2 MiB page made of a wide table (146,578 elements) took 439 MB and 104 s to
convert on the shared CI machine, a page of links 322 MB and 55 s. lxml parses
the same page in 0.4 s and ~40 MB, so the page is parsed once here first and
then bounded: comments, scripts, styles and inline SVG go (the model never sees
them), attribute values longer than ``MAX_ATTRIBUTE`` characters go (a
``data:`` image, a hostile 4 KB class name), and only the first
``MAX_ELEMENTS`` elements in document order are kept, everything after the
cut dropped. lxml itself stops nesting at depth 256. What was cut is said in
words (``Bounded.notes``): the model reads them at the end of the page.

``MAX_ELEMENTS`` is measured (benchmarks/web_turn_bench.py, the ``table``
case): 20,000 elements is ~6 times a long news article's whole page, and a
2 MiB table page cut there peaked at 116 MB RSS in 32 s instead of 426 MB in
211 s, both measured on the shared 2-core machine under a load of 9-14.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lxml.etree import _Element

MAX_ELEMENTS = 20_000
MAX_ATTRIBUTE = 2_048  # characters of one attribute value; longer ones are dropped (a cut link is a wrong link)
_NEVER_SHOWN = ("script", "style", "noscript", "template", "iframe", "svg", "object", "embed")


@dataclass(frozen=True)
class Bounded:
    """The markup to convert and, in words, what was cut from it (empty when nothing was)."""

    html: str
    notes: tuple[str, ...] = ()


def bounded(html: str, max_elements: int = MAX_ELEMENTS) -> Bounded:
    """``html`` with at most ``max_elements`` elements and no attribute over ``MAX_ATTRIBUTE`` characters."""
    import lxml.html
    from lxml import etree

    try:
        tree = lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return Bounded(html)  # nothing lxml can parse: the converters will find nothing either
    etree.strip_elements(tree, etree.Comment, etree.ProcessingInstruction, *_NEVER_SHOWN, with_tail=False)
    notes: list[str] = []
    total = 0
    cut_at = None
    for element in tree.iter(etree.Element):
        if total == max_elements:
            cut_at = element
        total += 1
    if cut_at is not None:
        _cut_from(cut_at)
        notes.append(f"[cut: the page has {total:,} HTML elements; only the first {max_elements:,} were converted "
                     "to Markdown, the rest of the page is not shown (fetching it again will not show more)]")
    dropped = 0
    for element in tree.iter(etree.Element):
        for name in [name for name, value in element.attrib.items() if len(value) > MAX_ATTRIBUTE]:
            del element.attrib[name]
            dropped += 1
    if dropped:
        notes.append(f"[{dropped:,} attribute value{'s' if dropped != 1 else ''} longer than {MAX_ATTRIBUTE:,} "
                     "characters (links, image sources) were left out]")
    markup: str = lxml.html.tostring(tree, encoding="unicode")
    return Bounded(markup, tuple(notes))


def _cut_from(element: "_Element") -> None:
    """Drop ``element`` and everything after it in document order (its subtree, its following siblings and
    those of each of its ancestors), with the text that follows them."""
    node: _Element | None = element
    while node is not None:
        parent = node.getparent()
        if parent is not None:
            while (after := node.getnext()) is not None:
                parent.remove(after)
        node = parent
    parent = element.getparent()
    if parent is not None:
        parent.remove(element)
