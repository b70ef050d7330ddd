"""Fitting at ingestion: within 1568 px and 1.15 MP, originals kept when they fit, refusals in words, and one
fit per unique picture (by its bytes, never its name)."""

from __future__ import annotations

import asyncio

import pytest

from kernel.core.errors import ImageRefused
from kernel.images.fit import LONG_EDGE, MAX_AREA, fit, sniff, target_size
from kernel.images.store import ImageStore
from ledger import Ledger

from .pictures import animated_gif, png_bomb, screenshot, size_of, solid


def test_a_screenshot_is_fitted_within_both_limits():
    fitted = fit(screenshot(2880, 1800))
    w, h = size_of(fitted.data)
    assert (w, h) == (fitted.width, fitted.height) == (1356, 847)
    assert max(w, h) <= LONG_EDGE and w * h <= MAX_AREA
    assert fitted.resized and fitted.media_type in ("image/png", "image/jpeg")


@pytest.mark.parametrize("size", [(8001, 300), (300, 8001), (1569, 10), (1100, 1100)])
def test_too_large_in_either_way_is_resized_not_refused(size):
    fitted = fit(solid(*size))
    w, h = size_of(fitted.data)
    assert max(w, h) <= LONG_EDGE and w * h <= MAX_AREA


def test_a_picture_that_fits_is_kept_byte_for_byte():
    for fmt in ("PNG", "JPEG", "WEBP"):
        data = solid(800, 600, fmt)
        fitted = fit(data)
        assert fitted.data == data and not fitted.resized
        assert fitted.media_type == f"image/{fmt.lower()}"


def test_a_still_gif_and_transparency_become_a_format_every_provider_reads():
    fitted = fit(solid(50, 40, "GIF"))
    assert fitted.media_type == "image/png" and size_of(fitted.data) == (50, 40)
    fitted = fit(solid(3000, 3000, "PNG", mode="RGBA"))
    assert fitted.media_type in ("image/png", "image/jpeg")


def test_target_size_keeps_the_shape():
    assert target_size(1000, 500) == (1000, 500)
    w, h = target_size(2880, 1800)
    assert abs(w / h - 1.6) < 0.01 and w * h <= MAX_AREA


@pytest.mark.parametrize("data, reason", [
    (b"\x89PNG\r\n\x1a\n" + b"garbage" * 20, "corrupt"),
    (screenshot(400, 300)[:300], "corrupt"),
    (b"not an image at all", "corrupt"),
    (png_bomb(), "huge"),
    (animated_gif(), "animated"),
])
def test_refusals_are_clear(data, reason):
    with pytest.raises(ImageRefused) as caught:
        fit(data)
    assert caught.value.reason == reason and caught.value.message


def test_sniffing_by_bytes():
    assert sniff(solid(2, 2, "PNG")) == "png"
    assert sniff(solid(2, 2, "JPEG")) == "jpeg"
    assert sniff(solid(2, 2, "WEBP")) == "webp"
    assert sniff(b"GIF89a....") == "gif"
    assert sniff(b"<svg xmlns=...") is None and sniff(b"") is None


def test_the_store_fits_each_source_once_and_keeps_the_bytes_once(tmp_path):
    ledger = Ledger(tmp_path / "ledger.db")
    store = ImageStore(ledger)
    shot = screenshot(2000, 1200, seed=3)

    async def go():
        first, second = await asyncio.gather(store.ingest(shot, origin="paste", label="pasted image"),
                                             store.ingest(shot, origin="file", label="fs_read a.png", path="a.png"))
        third = await store.ingest(shot, origin="file", label="fs_read b.png", path="b.png")
        return first, second, third

    first, second, third = asyncio.run(go())
    assert store.fitted == 1
    assert first.sha256 == second.sha256 == third.sha256
    assert (second.path, third.path, first.origin) == ("a.png", "b.png", "paste")
    assert ledger.blob(first.sha256) == store.bytes_of(first.sha256)
    assert ImageStore(ledger).bytes_of(first.sha256) is not None  # from the blob store, not the cache
    assert ImageStore(ledger).bytes_of("00" * 32) is None


def test_a_refusal_is_remembered_by_hash(tmp_path):
    store = ImageStore(Ledger(tmp_path / "ledger.db"))

    async def twice():
        for _ in range(2):
            with pytest.raises(ImageRefused):
                await store.ingest(png_bomb(), origin="file", label="x")

    asyncio.run(twice())
    assert store.fitted == 1
