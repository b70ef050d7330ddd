"""The lease requests a kernel has asked and not yet seen answered.

The agent loop asks its ``Approver`` and waits; when no approver is passed
in, the kernel's own ``PendingApprover`` holds each request open until
``resolve`` answers it (the desktop's dialogs do, through the facade).
``LeaseRequests`` follows the event stream to know which requests are open:
``LeaseRequested`` opens one, ``LeaseRequestResolved`` closes it, so the
list is right whoever answered (the approver, the expiry race, a kill).
"""

from __future__ import annotations

import asyncio

from .approver import Decision, LeaseRequest
from ..core.events import Event, EventBus, LeaseRequested, LeaseRequestResolved


class PendingApprover:
    """Holds each lease request open until someone calls ``Kernel.resolve_request``.

    An answer may arrive before ``decide`` has started waiting (the request was
    published, a dialog answered at once): it is kept and used when it starts.
    The first answer stands: a second client answering the same request (the
    desktop and a terminal) is told it came too late, and never overwrites it.
    """

    def __init__(self) -> None:
        self.open: dict[int, asyncio.Future[Decision]] = {}
        self.early: dict[int, Decision] = {}
        self.answered: set[int] = set()  # until the request is resolved: a later answer is too late

    async def decide(self, request: LeaseRequest) -> Decision:
        if request.id in self.early:
            return self.early.pop(request.id)
        fut: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self.open[request.id] = fut
        try:
            return await fut
        finally:
            self.open.pop(request.id, None)

    def resolve(self, request_id: int, decision: Decision) -> bool:
        if request_id in self.answered:
            return False
        fut = self.open.get(request_id)
        if fut is None:
            self.early[request_id] = decision
        elif fut.done():
            return False
        else:
            fut.set_result(decision)
        self.answered.add(request_id)
        return True

    def forget(self, request_id: int) -> None:
        self.early.pop(request_id, None)
        self.answered.discard(request_id)


class LeaseRequests:
    """The open lease requests, oldest first, and the way to answer them."""

    def __init__(self, bus: EventBus) -> None:
        self.approver = PendingApprover()
        self._open: dict[int, LeaseRequest] = {}
        bus.subscribe(self._track)

    def pending(self) -> list[LeaseRequest]:
        """Lease requests asked and not yet resolved, oldest first."""
        return list(self._open.values())

    def resolve(self, request_id: int, decision: Decision) -> bool:
        """Answer an open request; False when it is no longer open."""
        if request_id not in self._open:
            return False
        return self.approver.resolve(request_id, decision)

    def _track(self, event: Event) -> None:
        if isinstance(event, LeaseRequested):
            self._open[event.request.id] = event.request
        elif isinstance(event, LeaseRequestResolved):
            self._open.pop(event.request_id, None)
            self.approver.forget(event.request_id)


__all__ = ["LeaseRequests", "PendingApprover"]
