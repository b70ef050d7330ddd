"""What ingestion leaves on the event loop: large base64 is decoded in the worker (a chunk at a time, as
strict as one call), a large source is hashed there, and the base64 a request sends is made there too."""

from __future__ import annotations

import asyncio
import base64
import binascii
import os
import threading
from pathlib import Path

import pytest

from kernel.images import store as store_module
from kernel.images.store import HASH_ON_LOOP, ImageStore, decode_b64
from kernel.providers import image_wire
from ledger import Ledger
from tests.images.pictures import screenshot


def test_large_base64_is_decoded_in_chunks_off_the_loop_and_as_strictly() -> None:
    data = os.urandom(3 * HASH_ON_LOOP + 7)
    text = base64.b64encode(data).decode()
    threads: list[str] = []
    real = store_module._decode_chunks

    def spy(value: str) -> bytes:
        threads.append(threading.current_thread().name)
        return real(value)

    store_module._decode_chunks = spy  # type: ignore[assignment]
    try:
        assert asyncio.run(decode_b64(text)) == data
    finally:
        store_module._decode_chunks = real  # type: ignore[assignment]
    assert threads and threads[0] != threading.main_thread().name
    chunk = store_module._B64_CHUNK
    for bad in (text[:-1], text[:chunk] + "AA==" + text[chunk:], text[:1000] + "!" + text[1001:]):
        with pytest.raises(binascii.Error):
            base64.b64decode(bad, validate=True)
        with pytest.raises(binascii.Error):
            asyncio.run(decode_b64(bad))


def test_a_request_finds_its_base64_made_at_ingestion(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.db")
    try:
        store = ImageStore(ledger)
        part = asyncio.run(store.ingest(screenshot(2880, 1800, seed=5), origin="paste", label="shot"))
        data = store.bytes_of(part.sha256)
        assert data is not None
        key = (part.sha256, len(data), data[-32:])
        assert image_wire._ENCODED[key] == base64.b64encode(data).decode()  # made by the worker, kept
        assert image_wire.image_b64(part, {part.sha256: data}) is image_wire._ENCODED[key]
    finally:
        ledger.close()


def test_chunked_encoding_is_plain_base64() -> None:
    for size in (0, 1, 3 * 64 * 1024, 3 * 64 * 1024 + 1, 1_000_003):
        data = os.urandom(size)
        assert image_wire.encode_b64(data) == base64.b64encode(data).decode()
