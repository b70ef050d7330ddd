"""Getting a lease for a tool call: find a live one, or make a lease request and wait.

"Lease request" is the one name for this (the value is ``approver.LeaseRequest``,
the events ``LeaseRequested`` and ``LeaseRequestResolved``).

Asking puts the agent in ``waiting``, publishes the request and races the
approver against the request's expiry on the kernel clock. The outcome is a
value: a ``Lease``, or a ``Refusal`` whose message the model will see. A
grant that lands while the agent is being killed is revoked at once.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Awaitable, Mapping

from ledger import KERNEL, USER, Confirmed, Denied, Expired

from ..leases.approver import Denial, Grant, LeaseRequest
from ..core.errors import ToolFailure
from ..core.events import LeaseRequested, LeaseRequestResolved

from ..leases.lease import Lease, offered_durations
from ..core.states import AgentState, Outcome
from ..tools.descriptor import CallPreview, ToolDescriptor
from .process import AgentProcess


@dataclass(frozen=True)
class Refusal:
    message: str
    outcome: Outcome  # denied · expired


@dataclass(frozen=True)
class Once:
    """A person allowed this one call (``seq`` is its ``confirm`` entry); no lease was granted."""

    seq: int


@dataclass(frozen=True)
class OnceAsk:
    """What a one-off confirmation says beside the call: why it asks every time, and what looks wrong."""

    reason: str
    highlights: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    detail: tuple[str, ...] = ()  # the whole act in words, from the tool (``ToolDescriptor.detail_of``)


async def acquire(agent: AgentProcess, tool: ToolDescriptor, tool_input: Mapping[str, Any],
                  scope: str, call_id: str = "") -> Lease | Refusal:
    s = agent.services
    lease = s.leases.find(agent.id, scope)
    if lease is not None:
        return lease
    async with agent.request_lock:  # one open request per agent; parallel calls share its answer
        lease = s.leases.find(agent.id, scope)
        if lease is not None:
            return lease
        answer = await _ask(agent, tool, tool_input, scope, call_id)
    assert not isinstance(answer, Once)
    return answer


def _preview(agent: AgentProcess, tool: ToolDescriptor, tool_input: Mapping[str, Any]) -> CallPreview | None:
    if tool.preview is None:
        return None
    try:
        return tool.preview(agent.root, tool_input)
    except (ToolFailure, OSError, KeyError, TypeError, ValueError):  # a preview is a courtesy; ask without it
        return None


async def confirm_once(agent: AgentProcess, tool: ToolDescriptor, tool_input: Mapping[str, Any], scope: str,
                       call_id: str, ask: OnceAsk) -> Once | Refusal:
    """Ask a person to allow this one call; no lease is granted or consulted."""
    async with agent.request_lock:
        answer = await _ask(agent, tool, tool_input, scope, call_id, ask)
    assert not isinstance(answer, Lease)
    return answer


async def _ask(agent: AgentProcess, tool: ToolDescriptor, tool_input: Mapping[str, Any], scope: str,
               call_id: str = "", once: OnceAsk | None = None) -> Lease | Once | Refusal:
    s = agent.services
    now = s.clock.now()
    notes_for = getattr(tool, "notes_for", None)
    request = LeaseRequest(
        id=next(s.request_ids), agent_id=agent.id, agent_name=agent.name, tool=tool.name, scope=scope,
        input=dict(tool_input), durations=(0.0,) if once else offered_durations(s.settings.default_lease_s),
        default_duration=0.0 if once else s.settings.default_lease_s, expires_at=now + s.settings.request_expiry_s,
        preview=_preview(agent, tool, tool_input), notes=tuple(notes_for(tool_input)) if notes_for else (),
        call_id=call_id, once=once is not None, reason=once.reason if once else "",
        highlights=once.highlights if once else (), flags=once.flags if once else (),
        detail=once.detail if once else (),
    )
    previous = agent.state
    asking = "confirmation" if once else scope
    agent.set_state(AgentState.WAITING, f"asking for {asking} to call {tool.name}")
    s.bus.publish(LeaseRequested(request))
    outcome = Outcome.CANCELLED
    lease: Lease | None = None
    try:
        decision = await _race(s.approver.decide(request), s.clock.sleep_until(request.expires_at))
        if decision is None:
            outcome = Outcome.EXPIRED
            s.record(Expired(actor=KERNEL, scope=scope, subject=agent.id, tool=tool.name))
            return Refusal(f"permission request expired: nobody answered in time to grant {scope}", outcome)
        if isinstance(decision, Denial):
            outcome = Outcome.DENIED
            s.record(Denied(actor=decision.by, tool=tool.name, scope=scope, subject=agent.id, input=dict(tool_input),
                            reason="" if decision.by == USER else decision.reason))  # who refused, and why
            if decision.by != USER:  # a policy refused it: say which, and why
                return Refusal(f"permission denied for {scope}: {decision.reason}", outcome)
            return Refusal(f"permission denied: the user did not grant {scope}", outcome)
        assert isinstance(decision, Grant)
        if once is not None:
            if agent.killed:
                raise asyncio.CancelledError()
            entry = s.record(Confirmed(actor=USER, subject=agent.id, tool=tool.name, scope=scope,
                                       reason=once.reason, input=dict(tool_input)))
            outcome = Outcome.GRANTED
            return Once(entry.seq)
        lease = s.leases.grant(agent.id, scope, _clamp(decision.duration_s, request.durations))
        if agent.killed:
            s.leases.revoke(lease.id, "granted while the agent was being killed")
            raise asyncio.CancelledError()
        outcome = Outcome.GRANTED
        return lease
    finally:
        s.bus.publish(LeaseRequestResolved(request.id, agent.id, outcome, lease if outcome is Outcome.GRANTED else None))
        if not (agent.killed or agent.state is AgentState.INTERRUPTED):  # a stopping kernel said what it is
            agent.set_state(previous if previous is not AgentState.WAITING else AgentState.RUNNING)


def _clamp(duration: float, offered: tuple[float, ...]) -> float:
    """Only the offered durations are grantable; anything else becomes the nearest one not longer."""
    if duration in offered:
        return duration
    shorter = [d for d in offered if d <= duration]
    return max(shorter) if shorter else min(offered)


async def _race(decide: Awaitable[Grant | Denial], expiry: Awaitable[None]) -> Grant | Denial | None:
    """The approver's answer, or None when the expiry came first. Both are cleaned up."""
    decide_task: asyncio.Future[Grant | Denial] = asyncio.ensure_future(decide)
    expiry_task: asyncio.Future[None] = asyncio.ensure_future(expiry)
    both: set[asyncio.Future[Grant | Denial] | asyncio.Future[None]] = {decide_task, expiry_task}
    try:
        done, _ = await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
        if decide_task in done:
            return decide_task.result()
        return None
    finally:
        for task in (decide_task, expiry_task):
            if not task.done():
                task.cancel()
