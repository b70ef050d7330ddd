"""An SVG an agent wrote, made safe to draw as a picture: no DTD, no scripts, nothing loaded from elsewhere.

An SVG is a document that can ask for more than it shows. Qt's ``QSvgRenderer`` (what the desktop draws
thumbnails with) runs no scripts, but it does load an ``<image>`` whose href is a plain path: measured
2026-12-03 with PySide6 6.11, ``<image xlink:href="/tmp/secret.png">`` drew that local file into the
picture, even with ``Tiny12FeaturesOnly`` (``file:///`` URLs it fails to open; a DTD's external entity
it did not expand). A written SVG is hostile input, so before it leaves the kernel it is
parsed with a DTD refused outright (no entities: no billion laughs, no external entity) and rebuilt from an
allow-list: script, foreignObject and event handlers go, and every reference that is not inside the
document (``#id``) or an inline raster ``data:`` picture is dropped, in ``href``/``xlink:href``, in
``style`` and in ``<style>``. Bounded: sources over ``MAX_SVG_BYTES`` or with more than ``MAX_ELEMENTS``
elements are refused, so the renderer's time and memory stay small. ``clean_svg`` returns None when the
bytes are not an SVG it will pass on.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from xml.parsers import expat

MAX_SVG_BYTES = 512 * 1024
MAX_ELEMENTS = 20_000
_SVG_NS = "http://www.w3.org/2000/svg"
_XLINK = "{http://www.w3.org/1999/xlink}href"
_DROPPED = {"script", "foreignObject", "iframe", "handler", "listener", "discard", "animation", "video", "audio",
            "font-face-uri", "color-profile", "cursor"}
_RASTER_DATA = re.compile(r"\s*data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*\Z")
_URL = re.compile(r"url\s*\(\s*(['\"]?)\s*([^)'\"]*)\1\s*\)", re.IGNORECASE)


class _Refused(Exception):
    pass


def looks_like_svg(head: bytes) -> bool:
    """True when the first bytes read as an SVG document (the root element is ``svg``)."""
    text = head[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return text.startswith(b"<svg") or (text.startswith((b"<?xml", b"<!--", b"<!doctype")) and b"<svg" in text)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _safe_css(text: str) -> str:
    """``text`` with every ``url(...)`` that is not ``url(#id)`` removed, and ``@import`` gone."""
    text = re.sub(r"@import[^;]*;?", "", text, flags=re.IGNORECASE)
    return _URL.sub(lambda m: m.group(0) if m.group(2).strip().startswith("#") else "none", text)


def _parse(data: bytes) -> ET.Element:
    """An element tree from expat directly, with any DTD refused before it is read (the C ``XMLParser``
    does not let its entity handlers be replaced)."""
    raw = expat.ParserCreate(namespace_separator="}")
    builder = ET.TreeBuilder()

    def name(tag: str) -> str:
        return "{" + tag if "}" in tag else tag

    def refuse(*args: object) -> int:
        raise _Refused("a DTD or entity")

    def start(tag: str, attrs: dict[str, str]) -> None:
        builder.start(name(tag), {name(k): v for k, v in attrs.items()})

    raw.StartDoctypeDeclHandler = refuse
    raw.EntityDeclHandler = refuse
    raw.ExternalEntityRefHandler = refuse
    raw.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    raw.StartElementHandler = start
    raw.EndElementHandler = lambda tag: builder.end(name(tag))
    raw.CharacterDataHandler = builder.data
    raw.Parse(data, True)
    return builder.close()


def _clean(element: ET.Element) -> None:
    for child in list(element):
        if not isinstance(child.tag, str) or _local(child.tag) in _DROPPED:
            element.remove(child)
            continue
        _clean(child)
    for name in list(element.attrib):
        value = element.attrib[name]
        local = _local(name).lower()
        if local.startswith("on"):
            del element.attrib[name]
        elif name in (_XLINK, "href"):
            internal = value.strip().startswith("#")
            if not internal and not (_local(element.tag) == "image" and _RASTER_DATA.match(value)):
                del element.attrib[name]
        elif local == "style" or "url(" in value.lower():
            element.attrib[name] = _safe_css(value)
    if _local(element.tag) == "style" and element.text:
        element.text = _safe_css(element.text)


def clean_svg(data: bytes) -> bytes | None:
    """The SVG rebuilt without anything that runs or loads (see the module's docstring), or None."""
    if len(data) > MAX_SVG_BYTES or not looks_like_svg(data):
        return None
    try:
        root = _parse(data)
    except (_Refused, ET.ParseError, expat.ExpatError, ValueError, RecursionError):
        return None
    if _local(root.tag) != "svg" or not root.tag.startswith(("{" + _SVG_NS + "}", "svg")):
        return None
    if sum(1 for _ in root.iter()) > MAX_ELEMENTS:
        return None
    ET.register_namespace("", _SVG_NS)
    ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")
    try:
        _clean(root)
        text: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=False)
        return text
    except RecursionError:  # nesting deeper than Python's stack: not a picture anyone drew
        return None
