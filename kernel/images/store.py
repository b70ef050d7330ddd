"""Pictures kept by hash: fitted once in a worker thread, stored once in the ledger's blob store.

``ImageStore.ingest`` is the one door every picture comes in by (a paste, ``ask --image``, ``fs_read``, an
MCP tool, a channel). The source's sha256 keys a small cache of what fitting it gave (or why it was
refused), never its path: the same screenshot read twice, or from two names, is fitted once, and a file
changed in place is fitted again. Two agents ingesting the same bytes at once share one fit. The fitted
bytes go into the ledger's blob store (stored once per sha256) from the same worker thread, so neither
Pillow nor zlib ever runs on the event loop, and neither does hashing a source larger than
``HASH_ON_LOOP`` (sha256 of a 40 MB source is ~40 ms on the 2-core machine; measured 2026-12-03 with
``benchmarks/image_bench.py``, which prints what ingestion still does on the loop). ``bytes_of`` reads them back for a request through a cache
bounded in bytes (a conversation resends its pictures on every request).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
from collections import OrderedDict
from typing import TYPE_CHECKING, Callable

from ..core.errors import ImageRefused
from ..core.messages import ImageOrigin, ImagePart
from ..providers.image_wire import encode_b64, keep_b64
from .fit import Fitted, fit

if TYPE_CHECKING:
    from ledger import Ledger

_FITS_KEPT = 256
_BYTES_KEPT = 64 * 1024 * 1024
HASH_ON_LOOP = 256 * 1024  # bytes: a source up to this is hashed on the loop (well under a millisecond)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_B64_CHUNK = 256 * 1024  # characters (a multiple of 4): ~0.2 ms of decoding each


async def decode_b64(text: str) -> bytes:
    """Strict base64 (``binascii.Error`` when it is not), decoded off the loop when it is large: a pasted
    screenshot's base64 is megabytes. ``binascii`` holds the GIL while it decodes (measured 2026-12-03: a
    10 MB paste decoded in one call from a worker thread held the loop off for ~250 ms on the loaded
    machine), so the worker decodes a chunk at a time and the loop gets the GIL back between chunks."""
    if len(text) <= HASH_ON_LOOP:
        return base64.b64decode(text, validate=True)
    return await asyncio.to_thread(_decode_chunks, text)


def _decode_chunks(text: str) -> bytes:
    out = []
    for i in range(0, len(text), _B64_CHUNK):
        chunk = text[i:i + _B64_CHUNK]
        if i + _B64_CHUNK < len(text) and "=" in chunk:  # padding only at the very end, as in one call
            raise binascii.Error("padding before the end of the base64 text")
        out.append(base64.b64decode(chunk, validate=True))
    return b"".join(out)


class ImageStore:
    def __init__(self, ledger: "Ledger", fitter: Callable[[bytes], Fitted] = fit) -> None:
        self._ledger = ledger
        self._fitter = fitter
        self._fits: OrderedDict[str, tuple[Fitted, str] | ImageRefused] = OrderedDict()
        self._inflight: dict[str, asyncio.Future[tuple[Fitted, str] | ImageRefused]] = {}
        self._encoded: dict[str, str] = {}  # base64 made in the worker, handed to the wire on the loop
        self._bytes: OrderedDict[str, bytes] = OrderedDict()
        self._held = 0
        self.fitted = 0  # how many times Pillow actually ran (a figure for tests and benchmarks)

    async def ingest(self, data: bytes, *, origin: ImageOrigin, label: str, path: str | None = None,
                     untrusted: bool = False, source_sha: str | None = None) -> ImagePart:
        """``data`` fitted and stored; raises ``ImageRefused`` (a result the caller words for the model).
        ``source_sha``: ``data``'s sha256, when the caller hashed it already (in its own thread)."""
        if source_sha is not None:
            source = source_sha
        elif len(data) <= HASH_ON_LOOP:
            source = digest(data)
        else:
            source = await asyncio.to_thread(digest, data)
        outcome = self._fits.get(source)
        if outcome is None:
            outcome = await self._fit_once(source, data)
        else:
            self._fits.move_to_end(source)
        if isinstance(outcome, ImageRefused):
            raise ImageRefused(outcome.reason, outcome.message)
        fitted, sha = outcome
        self._keep(sha, fitted.data)
        encoded = self._encoded.pop(sha, None)
        if encoded is not None:
            keep_b64(sha, fitted.data, encoded)
        return ImagePart(sha, fitted.media_type, fitted.width, fitted.height, len(fitted.data), origin,
                         path=path, label=label, untrusted=untrusted)

    async def _fit_once(self, source: str, data: bytes) -> tuple[Fitted, str] | ImageRefused:
        running = self._inflight.get(source)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[tuple[Fitted, str] | ImageRefused] = asyncio.get_running_loop().create_future()
        self._inflight[source] = future
        try:
            outcome = await asyncio.to_thread(self._fit_and_store, data)
            future.set_result(outcome)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: a waiter may not exist
            raise
        finally:
            del self._inflight[source]
        self._fits[source] = outcome
        if len(self._fits) > _FITS_KEPT:
            self._fits.popitem(last=False)
        return outcome

    def _fit_and_store(self, data: bytes) -> tuple[Fitted, str] | ImageRefused:
        """In a worker thread: Pillow, then the blob store (which names the fitted bytes by their sha256)."""
        self.fitted += 1
        try:
            fitted = self._fitter(data)
        except ImageRefused as exc:
            return exc
        sha = self._ledger.put_blob(fitted.data)
        self._encoded[sha] = encode_b64(fitted.data)  # what a request sends, made here rather than on the loop
        return fitted, sha

    def bytes_of(self, sha: str) -> bytes | None:
        """The stored bytes of the picture ``sha``, or None when the blob store has none (or damaged ones)."""
        kept = self._bytes.get(sha)
        if kept is not None:
            self._bytes.move_to_end(sha)
            return kept
        from ledger.errors import CorruptBlob, UnknownBlob

        try:
            data = self._ledger.blob(sha)
        except (UnknownBlob, CorruptBlob):
            return None
        self._keep(sha, data)
        return data

    def _keep(self, sha: str, data: bytes) -> None:
        if sha in self._bytes:
            self._bytes.move_to_end(sha)
            return
        self._bytes[sha] = data
        self._held += len(data)
        while self._held > _BYTES_KEPT and len(self._bytes) > 1:
            _, old = self._bytes.popitem(last=False)
            self._held -= len(old)
