"""The event loop a kernel runs on, captured in one named place.

A kernel is built on one thread, often before any loop runs (tests and the
CLI build it first), and learns its loop when it first starts work on it.
Ledger appends may come from worker threads (a shell command's snapshot, an
outside watcher); what they announce must reach subscribers on the kernel's
own thread, so ``call_soon`` hops there when it is called from elsewhere.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Callable, TypeVar

T = TypeVar("T")


class KernelLoop:
    def __init__(self) -> None:
        self.thread = threading.get_ident()
        self.loop: asyncio.AbstractEventLoop | None = None

    def capture(self) -> asyncio.AbstractEventLoop | None:
        """Remember the running loop (None when called outside one)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        self.loop = loop
        return loop

    def running(self) -> asyncio.AbstractEventLoop:
        """The running loop, remembered (RuntimeError outside one, as ``asyncio.get_running_loop``)."""
        self.loop = asyncio.get_running_loop()
        return self.loop

    def call_soon(self, fn: Callable[[T], None], arg: T) -> None:
        """``fn(arg)`` now on the kernel's thread (or before any loop is known), else soon on its loop."""
        if threading.get_ident() == self.thread or self.loop is None:
            fn(arg)
        else:
            self.loop.call_soon_threadsafe(fn, arg)
