"""The leases desk: live leases, granting and revoking as the user, and answering open lease requests."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..leases.approver import Decision, LeaseRequest
    from ..leases.book import LeaseBook
    from ..leases.lease import Lease
    from ..leases.pending import LeaseRequests


class Leases:
    """``kernel.api.LeaseDesk`` in process."""

    def __init__(self, book: LeaseBook, requests: LeaseRequests) -> None:
        self._book = book
        self._requests = requests

    def list(self, agent_id: str | None = None) -> builtins.list[Lease]:
        """Live leases (of one agent, or all), as the lease book has them."""
        return self._book.live(agent_id)

    def grant(self, agent_id: str, scope: str, duration_s: float) -> Lease:
        """Grant a lease as the user without being asked (``ask --grant``, benchmarks, tests)."""
        return self._book.grant(agent_id, scope, duration_s)

    def revoke(self, lease_id: int) -> Lease | None:
        return self._book.revoke(lease_id, "revoked by the user")

    def pending(self) -> builtins.list[LeaseRequest]:
        """Lease requests asked and not yet resolved, oldest first."""
        return self._requests.pending()

    def resolve(self, request_id: int, decision: Decision) -> bool:
        """Answer an open lease request (desktop dialogs); False when it is no longer open."""
        return self._requests.resolve(request_id, decision)
