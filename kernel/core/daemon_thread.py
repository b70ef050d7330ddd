"""Work off the loop that never holds up the process's exit: a daemon thread, awaited like ``asyncio.to_thread``.

``asyncio.to_thread`` runs on the loop's default executor, whose threads
``asyncio.run`` joins when it ends and ``concurrent.futures`` joins again at
interpreter exit: a kernel stopped while its provider's SDK was still being
imported there (2.7 s of CPU for ``import anthropic`` on this 2-core machine,
2026-12-03) waited for the import to finish before it exited. Work that is only
ever a head start (importing modules, building a client the first request
would build anyway) runs here instead: if the process ends first, the thread
ends with it.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Callable, TypeVar

T = TypeVar("T")


async def in_daemon_thread(work: Callable[[], T], name: str) -> T:
    """``work()`` in a daemon thread called ``name``; its result, or its exception raised here."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]  # (None only alongside an error)

    def run() -> None:
        result: T | None = None
        error: BaseException | None = None
        try:
            result = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine, raised there
            error = exc
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:  # the loop closed meanwhile (the process is stopping): nobody waits
            pass

    threading.Thread(target=run, name=name, daemon=True).start()
    return await done
