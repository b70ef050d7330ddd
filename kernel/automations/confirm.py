"""One-off confirmations: a question about one act, answered yes or no, that no lease satisfies.

``automation_create`` asks one every time: the whole definition in words.
The decision is a value from a ``Confirmer``; the kernel's own confirmer
publishes ``ConfirmationRequested`` and waits for the desktop (or a test) to
answer with ``Kernel.resolve_confirmation``; the terminal's asks on the TTY;
with nobody there it is declined. Unattended agents are declined before
anyone is asked.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Callable, Protocol

from ..events import ConfirmationRequested, ConfirmationResolved, Event


class Confirmer(Protocol):
    async def confirm(self, request: ConfirmationRequested) -> bool: ...


class Decline:
    """Nobody can answer: every confirmation is declined."""

    async def confirm(self, request: ConfirmationRequested) -> bool:
        return False


class PendingConfirmations:
    """Confirmations waiting for an answer through the facade (the desktop's dialog)."""

    def __init__(self, publish: Callable[[Event], None]) -> None:
        self._publish = publish
        self._open: dict[int, tuple[ConfirmationRequested, asyncio.Future[bool]]] = {}
        self.ids = itertools.count(1)

    async def confirm(self, request: ConfirmationRequested) -> bool:
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._open[request.id] = (request, fut)
        self._publish(request)
        try:
            return await fut
        finally:
            self._open.pop(request.id, None)
            self._publish(ConfirmationResolved(request.id, fut.done() and not fut.cancelled() and fut.result()))

    def pending(self) -> list[ConfirmationRequested]:
        return [r for r, _ in self._open.values()]

    def resolve(self, request_id: int, confirmed: bool) -> bool:
        entry = self._open.get(request_id)
        if entry is None or entry[1].done():
            return False
        entry[1].set_result(confirmed)
        return True
