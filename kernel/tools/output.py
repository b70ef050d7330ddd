"""Capping a command's output: keep the head and the tail, count what was cut.

The start of a command's output says what it was doing and the end says how
it finished (the error, the summary line); the middle of a long build log
rarely matters to the model and would flood its context. Memory stays bounded
however much the command prints.

A secret printed across a cut must not leave half of itself behind, where
the ledger's redactor would no longer recognise it: with a ``finder`` (the
kernel's redactor) the buffer keeps ``MARGIN`` more bytes past each cut and
cuts around any secret that crosses it (``kernel.redaction.cuts``). The text
is assembled from the whole of what was kept, never chunk by chunk, so a
secret split across two reads of the pipe is one secret here.
"""

from __future__ import annotations

from ..redaction.cuts import MARGIN, Spans, head, tail


class OutputBuffer:
    """Keeps the first ``cap // 2`` and the last ``cap - cap // 2`` bytes fed to it (and a margin past each
    cut when ``finder`` is given)."""

    def __init__(self, cap: int, finder: Spans | None = None) -> None:
        self.head_max = max(0, cap // 2)
        self.tail_max = max(0, cap - self.head_max)
        self.finder = finder
        margin = MARGIN if finder is not None else 0
        self._head_room = self.head_max + margin
        self._tail_room = self.tail_max + margin if self.tail_max else 0
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self._head_room - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self._tail_room:
            self._tail += chunk
            if len(self._tail) > 2 * self._tail_room:  # trim now and then, not on every chunk
                del self._tail[:-self._tail_room]

    @property
    def cut(self) -> int:
        return max(0, self.total - self.head_max - self.tail_max)

    def text(self) -> str:
        kept = bytes(self._head) + bytes(self._tail[-self._tail_room:] if self._tail_room else b"")
        if not self.cut:
            return kept.decode("utf-8", "replace")
        first = bytes(self._head)
        last = kept[-self._tail_room:] if self._tail_room else b""
        shown_head = len(first[:self.head_max].decode("utf-8", "replace"))
        shown_tail = len(last[-self.tail_max:].decode("utf-8", "replace")) if self.tail_max else 0
        return (head(first.decode("utf-8", "replace"), shown_head, self.finder) + f"\n[... {self.cut} bytes cut ...]\n"
                + tail(last.decode("utf-8", "replace"), shown_tail, self.finder))
