"""Run an SDK's stream on a private event loop in a worker thread.

The openai and google-genai SDKs transform and validate the whole conversation
on every request: milliseconds of CPU that grow with the conversation. Measured
with benchmarks/provider_loop_block.py (40-turn tool loop, 8 tools, 2 KB per
result, fake server in another process), the worst stall of the caller's loop
per request, turn 1 / turn 40:

    openai (Responses)  on-loop 1.6 / 70 ms    off-loop 7.5 / 7.3 ms
    openai-chat         on-loop 1.6 / 21 ms    off-loop 5.2 / 5.7 ms
    gemini              on-loop 0.6 / 39 ms    off-loop 4.9 / 5.5 ms
    anthropic           on-loop ~2.5 ms flat   (stays on the loop)

Off the loop the stall no longer grows; what is left is the GIL's switch
interval (5 ms), since the worker's CPU work still holds the interpreter
lock in slices. Those adapters run their async SDK call here, on a loop of
their own, and the caller's loop only receives finished events through an
``asyncio.Queue``. An async loop rather than a sync client in a thread,
because cancelling a task there interrupts a blocked socket read at once and
the SDK's own ``finally`` closes the response: when the consumer stops
iterating, the server sees the disconnect within milliseconds, not when the
next byte happens to arrive.

The desktop goes one step further: ``process_host.ProcessProvider`` runs these
adapters (on-loop, in-process) in a child process, so their CPU no longer
holds the GIL the Qt loop needs.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any, AsyncIterator, Awaitable, Callable, Coroutine, TypeVar

T = TypeVar("T")

_CLOSE_WAIT_S = 1.0


class LoopThread:
    """One daemon thread running an event loop, started on first use."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self._running_loop())

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the worker loop and await its result from the caller's loop."""
        return await asyncio.wrap_future(self.submit(coro))

    def stop(self) -> None:
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        if not thread.is_alive():
            loop.close()

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()
                thread = threading.Thread(target=_serve, args=(loop, ready), name=self._name, daemon=True)
                thread.start()
                ready.wait()
                self._loop, self._thread = loop, thread
            return self._loop


def _serve(loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
    asyncio.set_event_loop(loop)
    loop.call_soon(ready.set)
    loop.run_forever()


async def relay(worker: LoopThread, source: Callable[[], AsyncIterator[T]]) -> AsyncIterator[T]:
    """Iterate ``source()`` on the worker loop, yielding its items here.

    Exceptions from the source are re-raised here. Leaving early (aclose,
    cancellation) cancels the worker task and waits briefly for it to unwind,
    so the HTTP response is closed by the time this generator is.
    """
    here = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
    finished = asyncio.Event()

    def post(kind: str, value: Any = None) -> None:
        try:
            here.call_soon_threadsafe(queue.put_nowait, (kind, value))
        except RuntimeError:  # the caller's loop is gone; nobody is listening
            pass

    async def pump() -> None:
        try:
            async for item in source():
                post("item", item)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, not swallowed
            post("error", exc)
        else:
            post("end")
        finally:
            try:
                here.call_soon_threadsafe(finished.set)
            except RuntimeError:
                pass

    future = worker.submit(pump())
    try:
        while True:
            kind, value = await queue.get()
            if kind == "item":
                yield value
            elif kind == "error":
                raise value
            else:
                return
    finally:
        if not future.done():
            future.cancel()
            await _wait_briefly(finished.wait())


async def _wait_briefly(awaitable: Awaitable[Any]) -> None:
    try:
        await asyncio.wait_for(awaitable, _CLOSE_WAIT_S)
    except asyncio.TimeoutError:
        pass
