"""Channel agents' lease requests and confirmations: the desktop answers, or nobody does.

A channel sender can never answer a lease request or a confirmation: the
adapters have no path to ``resolve`` at all, and this wrapper around the
kernel's approver refuses a channel agent's request at once, by the kernel,
when no client that can answer is attached (as for automations: nothing
unattended waits for a person). With a desktop attached the request goes to
it like any other agent's.
"""

from __future__ import annotations

from typing import Callable

from ledger import KERNEL

from ..leases.approver import Approver, Decision, Denial, LeaseRequest

NOBODY = ("asked by a channel agent while no desktop is attached; a chat sender cannot grant it. "
          "Do without it or finish.")


class ChannelApprover:
    def __init__(self, inner: Approver, attached: Callable[[], bool]) -> None:
        self._inner = inner
        self._attached = attached
        self.agents: dict[str, str] = {}  # agent id → its channel

    async def decide(self, request: LeaseRequest) -> Decision:
        if request.agent_id in self.agents and not self._attached():
            return Denial(NOBODY, by=KERNEL)
        return await self._inner.decide(request)

