"""An SVG an agent wrote is cleaned before it is drawn, and every stored picture has a bounded thumbnail."""

from __future__ import annotations

import base64
import io
import time
from pathlib import Path

from PIL import Image

from kernel.images.svg import MAX_SVG_BYTES, clean_svg
from kernel.images.thumbnail import MAX_EDGE, thumbnail
from tests.images.pictures import (
    billion_laughs_svg, external_entity_svg, hostile_svg, png_bomb, screenshot, solid,
)


def test_a_hostile_svg_keeps_what_it_draws_and_loses_what_it_asks_for(tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes(solid(10, 10))
    cleaned = clean_svg(hostile_svg(str(secret)))
    assert cleaned is not None
    text = cleaned.decode()
    assert 'fill="red"' in text and "<svg" in text
    for gone in (str(secret), "file:", "script", "alert", "onload", "foreignObject", "evil.example", "@import"):
        assert gone not in text, gone


def test_internal_references_and_inline_pictures_stay() -> None:
    inline = "data:image/png;base64," + base64.b64encode(solid(2, 2)).decode()
    source = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
              '<defs><linearGradient id="g"/></defs><rect fill="url(#g)" width="5" height="5"/>'
              f'<use xlink:href="#g"/><image href="{inline}"/><image href="data:text/html;base64,PGI+"/></svg>')
    text = clean_svg(source.encode())
    assert text is not None
    assert b'fill="url(#g)"' in text and b'href="#g"' in text and inline.encode() in text
    assert b"text/html" not in text


def test_entities_are_refused_in_bounded_time(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("the secret")
    start = time.perf_counter()
    assert clean_svg(billion_laughs_svg()) is None
    assert clean_svg(external_entity_svg(str(tmp_path / "secret.txt"))) is None
    assert time.perf_counter() - start < 1.0
    assert thumbnail(billion_laughs_svg()) is None


def test_oversized_deep_or_foreign_documents_have_no_svg() -> None:
    assert clean_svg(b"<svg>" + b" " * MAX_SVG_BYTES + b"</svg>") is None
    assert clean_svg(b'<svg xmlns="http://www.w3.org/2000/svg">' + b"<g>" * 20_001 + b"</g>" * 20_001 + b"</svg>") is None
    assert clean_svg(b"<html><svg/></html>") is None
    assert clean_svg(b"<svg><unclosed></svg>") is None
    assert clean_svg(b"plain text") is None


def test_a_raster_thumbnail_is_small_png_and_a_bomb_has_none() -> None:
    thumb = thumbnail(screenshot(2880, 1800), edge=200)
    assert thumb is not None and thumb.media_type == "image/png" and (thumb.width, thumb.height) == (2880, 1800)
    shown = Image.open(io.BytesIO(base64.b64decode(thumb.data_b64)))
    assert shown.size == (200, 125)
    assert max(Image.open(io.BytesIO(base64.b64decode(thumbnail(solid(3000, 100), edge=10_000).data_b64))).size) == MAX_EDGE  # type: ignore[union-attr]
    assert thumbnail(png_bomb()) is None
    assert thumbnail(b"\x89PNG\r\n\x1a\n broken") is None
    assert thumbnail(b"just text") is None


def test_an_svg_thumbnail_is_the_cleaned_text_with_its_size(tmp_path: Path) -> None:
    thumb = thumbnail(hostile_svg(str(tmp_path / "secret.png")))
    assert thumb is not None and thumb.media_type == "image/svg+xml" and (thumb.width, thumb.height) == (100, 100)
    assert b"secret" not in base64.b64decode(thumb.data_b64)
