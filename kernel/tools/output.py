"""Capping a command's output: keep the head and the tail, count what was cut.

The start of a command's output says what it was doing and the end says how
it finished (the error, the summary line); the middle of a long build log
rarely matters to the model and would flood its context. Memory stays bounded
however much the command prints.
"""

from __future__ import annotations


class OutputBuffer:
    """Keeps the first ``cap // 2`` and the last ``cap - cap // 2`` bytes fed to it."""

    def __init__(self, cap: int) -> None:
        self.head_max = max(0, cap // 2)
        self.tail_max = max(0, cap - self.head_max)
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_max - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self.tail_max:
            self._tail += chunk
            if len(self._tail) > 2 * self.tail_max:  # trim now and then, not on every chunk
                del self._tail[:-self.tail_max]

    @property
    def cut(self) -> int:
        return self.total - len(self._head) - min(len(self._tail), self.tail_max)

    def text(self) -> str:
        tail = bytes(self._tail[-self.tail_max:]) if self.tail_max else b""
        head = bytes(self._head)
        if not self.cut:
            return (head + tail).decode("utf-8", "replace")
        return (head.decode("utf-8", "replace") + f"\n[... {self.cut} bytes cut ...]\n"
                + tail.decode("utf-8", "replace"))
