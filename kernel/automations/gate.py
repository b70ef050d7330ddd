"""The unattended gate: lease requests of automation runs are refused at once, never left waiting.

The kernel's approver is wrapped: a request from an agent that is an
automation run gets a ``Denial`` by ``automation:<id>`` with the reason
"outside the automation's policy" (the leases its policy allows were granted
when the run started, so anything asked for is outside it), the request
lands in the Inbox, and the third refusal in a row stops the run as
``blocked``. Requests of every other agent go to the approver as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..leases.approver import Approver, Decision, Denial, LeaseRequest

OUTSIDE_POLICY = "outside the automation's policy"
# Inbox kinds of a refusal: REQUEST, a lease request (a lease in the policy lets the next run through);
# CONFIRM, a call refused at once because it is confirmed one at a time (an outward action, a confirm
# policy, a run that read untrusted content): no lease lets it through, so it cannot be added to a policy.
REQUEST, CONFIRM = "request", "confirm"
BLOCK_AFTER = 3


@dataclass
class RunWatch:
    """What the gate knows of one live run."""

    automation: str
    name: str
    refusals_in_a_row: int = 0
    refused: int = 0        # every refusal of the run (a run whose every action was refused is ``blocked``)
    went_through: int = 0   # tool calls of the run that went through
    blocked: bool = False
    on_block: Callable[[], None] = field(default=lambda: None)


class UnattendedGate:
    def __init__(self, inner: Approver, inbox: Callable[[str, str, str, str], None]) -> None:
        self._inner = inner
        self._inbox = inbox          # (automation id, scope, detail, kind: REQUEST or CONFIRM)
        self.runs: dict[str, RunWatch] = {}  # agent id → its run

    def unattended(self, agent_id: str) -> bool:
        return agent_id in self.runs

    async def decide(self, request: LeaseRequest) -> Decision:
        run = self.runs.get(request.agent_id)
        if run is None:
            return await self._inner.decide(request)
        self._refused(run, request.scope,
                      f"{request.agent_name} asked for {request.scope} to call {request.tool}; refused: {OUTSIDE_POLICY}",
                      REQUEST)
        return Denial(f"{OUTSIDE_POLICY}; it waits in the user's Inbox. Do without it or finish.",
                      by=f"automation:{run.automation}")

    def note_refusal(self, agent_id: str, scope: str, detail: str) -> None:
        """The kernel refused a run's call before any lease request (a tainted run's outward call): it goes
        to the Inbox and counts toward ``blocked`` like a refused request. Other agents: nothing."""
        run = self.runs.get(agent_id)
        if run is not None:
            self._refused(run, scope, detail, CONFIRM)

    def _refused(self, run: RunWatch, scope: str, detail: str, kind: str) -> None:
        run.refusals_in_a_row += 1
        run.refused += 1
        self._inbox(run.automation, scope, detail, kind)
        if run.refusals_in_a_row >= BLOCK_AFTER and not run.blocked:
            run.blocked = True
            run.on_block()

    def succeeded(self, agent_id: str) -> None:
        """A tool call of this run went through: the refusals are no longer in a row."""
        run = self.runs.get(agent_id)
        if run is not None:
            run.refusals_in_a_row = 0
            run.went_through += 1
