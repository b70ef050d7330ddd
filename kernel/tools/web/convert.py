"""A fetched body as text a model can read: HTML as Markdown, text and JSON as they are.

HTML goes through readability-lxml (the article, without navigation,
banners and comments) and then markdownify: on a realistic article page this
kept all eight key passages and none of the eight pieces of page chrome,
where markdownify on the whole page leaked all eight, script text included
(LIBRARIES.md §4, measured 2026-12-01; both are Apache/MIT, html2text is
GPL). When readability keeps almost nothing (a short page, a list of links),
the page's ``<body>`` is converted instead, scripts and styles removed.
Links and images are made absolute against the final URL, so a link the
model follows goes where the page meant. Both libraries are imported on
first use. Text whose declared charset is unknown or wrong is decoded as
UTF-8 with replacement characters, never refused. Other types (images,
archives, PDFs) are described, not dumped.

Before conversion the markup is bounded (``bound``: at most 20,000 elements,
no huge attributes): a hostile 2 MiB table took 439 MB and 104 s to convert
unbounded. A page the converters still fail on is shown as its plain text. The
model is told in words what was cut or not converted (``Readable.notes``).
Conversions run one at a time (``CONVERTING``), off the event loop in one
thread (``web.tools.CONVERTER``), so eleven fetches of one turn never hold
eleven conversions.
"""

from __future__ import annotations

import codecs
import json
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from .bound import MAX_ELEMENTS, bounded

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset({"application/json", "application/xml", "application/javascript", "application/x-yaml",
                        "application/yaml", "application/toml", "application/x-ndjson"})
ALMOST_NOTHING = 200  # characters of article text below which readability is taken to have missed the page
_DROP = ("script", "style", "noscript", "template", "iframe", "svg", "head")
CONVERTING = threading.Lock()  # one HTML conversion at a time in this process: its memory is the peak


@dataclass(frozen=True)
class Readable:
    """A body as text for the model, and what was cut from it or not converted, in words."""

    text: str
    notes: tuple[str, ...] = ()


def decode(body: bytes, charset: str | None) -> str:
    """``body`` as text: the declared charset if Python knows it, else UTF-8; bad bytes become U+FFFD."""
    encoding = "utf-8"
    if charset:
        try:
            encoding = codecs.lookup(charset).name
        except LookupError:
            pass
    if body.startswith(codecs.BOM_UTF8):
        encoding, body = "utf-8", body[len(codecs.BOM_UTF8):]
    return body.decode(encoding, errors="replace")


def is_text(media_type: str) -> bool:
    return (media_type.startswith("text/") or media_type in TEXT_TYPES or media_type.endswith("+json")
            or media_type.endswith("+xml"))


def readable(body: bytes, media_type: str, charset: str | None, base_url: str,
             max_elements: int = MAX_ELEMENTS) -> Readable | None:
    """The body as text for the model, or None when its type is not text (describe it instead). Blocks for as
    long as a conversion takes (seconds for a big page): call it from a worker thread."""
    if media_type in HTML_TYPES:
        with CONVERTING:
            return html_to_markdown(decode(body, charset), base_url, max_elements)
    if not is_text(media_type):
        return None
    text = decode(body, charset)
    if media_type == "application/json" or media_type.endswith("+json"):
        return Readable(_pretty_json(text))
    return Readable(text)


def describe(media_type: str, size: int, total: int | None) -> str:
    """One line in place of a body that is not text."""
    whole = f"{total:,} bytes" if total is not None else f"at least {size:,} bytes"
    return f"[{media_type} content, {whole}: not text, so not shown]"


def html_to_markdown(html: str, base_url: str, max_elements: int = MAX_ELEMENTS) -> Readable:
    """The page's article as Markdown with absolute links; the whole body when readability finds little; its
    plain text when the converters fail on it. The markup is bounded first (``bound``)."""
    if not html.strip():
        return Readable("")
    page = bounded(html, max_elements)
    try:
        return Readable(_converted(page.html, base_url), page.notes)
    except RecursionError:  # nesting deeper than the converters' recursion (lxml allows 256 levels)
        why = "it is nested too deeply"
    return Readable(_plain_text(page.html), (*page.notes, f"[not converted to Markdown: {why}; shown as plain "
                                                          "text, without links or layout]"))


def _converted(html: str, base_url: str) -> str:
    title, article = _article(html)
    markdown = _markdown(article, base_url) if article else ""
    if len(markdown.strip()) < ALMOST_NOTHING:
        whole = _markdown(_body(html), base_url)
        if len(whole.strip()) > len(markdown.strip()):
            markdown = whole
    markdown = _tidy(markdown)
    if title and title.strip() and title.strip() not in markdown[:len(title) + 20]:
        markdown = f"# {title.strip()}\n\n{markdown}"
    return markdown


def _article(html: str) -> tuple[str, str]:
    from readability import Document  # readability-lxml
    from readability.readability import Unparseable

    try:
        doc = Document(html)
        return doc.short_title() or "", doc.summary(html_partial=True)
    except (Unparseable, ValueError, TypeError):
        return "", ""


def _body(html: str) -> str:
    import lxml.html
    from lxml.etree import ParserError

    try:
        tree = lxml.html.document_fromstring(html)
    except (ParserError, ValueError):
        return ""
    for element in tree.iter(*_DROP):
        element.drop_tree()
    body = tree.find("body")
    markup: str = lxml.html.tostring(body if body is not None else tree, encoding="unicode")
    return markup


def _markdown(html: str, base_url: str) -> str:
    import lxml.html
    import markdownify
    from lxml.etree import ParserError

    try:
        tree = lxml.html.fragment_fromstring(html, create_parent="div")
        _links_absolute(tree, base_url)
        for element in tree.iter(*_DROP):
            element.drop_tree()
        html = lxml.html.tostring(tree, encoding="unicode")
    except (ParserError, ValueError):
        pass
    # lxml's parser under BeautifulSoup: ~3 times faster than html.parser on a 20,000-element page
    return markdownify.markdownify(html, heading_style="ATX", bullets="-", strip=["form", "button", "input"],
                                   bs4_options="lxml")


def _links_absolute(tree: Any, base_url: str) -> None:
    """Links and image sources (all markdownify shows) made absolute against ``base_url``; one that cannot be
    is dropped. Faster than lxml's ``make_links_absolute``, which parses every element's CSS for links too."""
    for element in tree.iter("a", "img"):
        name = "href" if element.tag == "a" else "src"
        value = element.get(name)
        if value is None:
            continue
        try:
            element.set(name, urljoin(base_url, value.strip()))
        except ValueError:
            del element.attrib[name]


def _plain_text(html: str) -> str:
    import lxml.html
    from lxml.etree import ParserError

    try:
        text: str = lxml.html.document_fromstring(html).text_content()
    except (ParserError, ValueError):
        return ""
    return _tidy(text)


def _tidy(markdown: str) -> str:
    """No runs of blank lines, no trailing spaces."""
    lines = [line.rstrip() for line in markdown.strip().splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out)


def _pretty_json(text: str) -> str:
    """JSON as it came, re-indented when it parses (a body that does not parse is shown as it is)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return text
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return text
