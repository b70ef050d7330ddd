"""Pictures kept by hash: fitted once in a worker thread, stored once in the ledger's blob store.

``ImageStore.ingest`` is the one door every picture comes in by (a paste, ``ask --image``, ``fs_read``, an
MCP tool, a channel). The source's sha256 keys a small cache of what fitting it gave (or why it was
refused), never its path: the same screenshot read twice, or from two names, is fitted once, and a file
changed in place is fitted again. Two agents ingesting the same bytes at once share one fit. The fitted
bytes go into the ledger's blob store (stored once per sha256) from the same worker thread, so neither
Pillow nor zlib ever runs on the event loop. ``bytes_of`` reads them back for a request through a cache
bounded in bytes (a conversation resends its pictures on every request).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from typing import TYPE_CHECKING, Callable

from ..core.errors import ImageRefused
from ..core.messages import ImageOrigin, ImagePart
from .fit import Fitted, fit

if TYPE_CHECKING:
    from ledger import Ledger

_FITS_KEPT = 256
_BYTES_KEPT = 64 * 1024 * 1024


class ImageStore:
    def __init__(self, ledger: "Ledger", fitter: Callable[[bytes], Fitted] = fit) -> None:
        self._ledger = ledger
        self._fitter = fitter
        self._fits: OrderedDict[str, Fitted | ImageRefused] = OrderedDict()
        self._inflight: dict[str, asyncio.Future[Fitted | ImageRefused]] = {}
        self._bytes: OrderedDict[str, bytes] = OrderedDict()
        self._held = 0
        self.fitted = 0  # how many times Pillow actually ran (a figure for tests and benchmarks)

    async def ingest(self, data: bytes, *, origin: ImageOrigin, label: str, path: str | None = None,
                     untrusted: bool = False) -> ImagePart:
        """``data`` fitted and stored; raises ``ImageRefused`` (a result the caller words for the model)."""
        source = hashlib.sha256(data).hexdigest()
        outcome = self._fits.get(source)
        if outcome is None:
            outcome = await self._fit_once(source, data)
        else:
            self._fits.move_to_end(source)
        if isinstance(outcome, ImageRefused):
            raise ImageRefused(outcome.reason, outcome.message)
        sha = hashlib.sha256(outcome.data).hexdigest()
        self._keep(sha, outcome.data)
        return ImagePart(sha, outcome.media_type, outcome.width, outcome.height, len(outcome.data), origin,
                         path=path, label=label, untrusted=untrusted)

    async def _fit_once(self, source: str, data: bytes) -> Fitted | ImageRefused:
        running = self._inflight.get(source)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[Fitted | ImageRefused] = asyncio.get_running_loop().create_future()
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

    def _fit_and_store(self, data: bytes) -> Fitted | ImageRefused:
        """In a worker thread: Pillow, then the blob store."""
        self.fitted += 1
        try:
            fitted = self._fitter(data)
        except ImageRefused as exc:
            return exc
        self._ledger.put_blob(fitted.data)
        return fitted

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
