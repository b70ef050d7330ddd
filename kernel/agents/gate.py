"""The permission step: policy and taint decide how a call is allowed, before any lease is looked at.

In order: a ``deny`` policy refuses at once (recorded as by ``policy``); an
outward (R3) call of a tainted agent needs a one-off confirmation that no
lease satisfies, and an unattended agent (an automation run) is refused
at once instead, since nobody is there to confirm; a ``confirm`` policy
(the default for R3 scopes), or a tool that ``always_confirm``s whatever
the policy (``automation_create``, whose request carries its definition in
words as ``detail``), asks on every call; ``auto`` has the kernel
grant the default-duration lease itself, recorded as granted by
``policy``; ``ask`` is the lease dialog. The outcome is a value: a
``Lease``, a ``Once`` or a ``Refusal``.
"""

from __future__ import annotations

from typing import Any, Mapping

from ledger import KERNEL, POLICY, Denied

from ..core.errors import ToolFailure
from ..leases.lease import Lease
from ..core.messages import TextPart
from ..core.states import Outcome
from ..tools.descriptor import Risk, ToolDescriptor
from ..trust.policy import Mode, mode_for
from ..trust.suspicion import flags, highlights
from .permission import Once, OnceAsk, Refusal, acquire, confirm_once
from .process import AgentProcess

Permit = Lease | Once | Refusal


def call_risk(tool: ToolDescriptor, tool_input: Mapping[str, Any]) -> Risk:
    """The call's risk class; a tool that cannot say is taken at its worst."""
    try:
        return tool.risk_for(tool_input)
    except Exception:  # noqa: BLE001 - a tool bug must not lower the gate
        return Risk.OUTWARD


def _confirms(tool: ToolDescriptor, tool_input: Mapping[str, Any]) -> bool:
    """Whether the call is confirmed one at a time; a tool that cannot say is confirmed."""
    try:
        return tool.confirms(tool_input)
    except Exception:  # noqa: BLE001 - a tool bug must not lower the gate
        return True


async def permit(agent: AgentProcess, tool: ToolDescriptor, tool_input: Mapping[str, Any], scope: str,
                 call_id: str = "") -> Permit:
    s = agent.services
    risk = call_risk(tool, tool_input)
    always = _confirms(tool, tool_input)
    mode = mode_for(scope, risk, s.settings.policies, always)
    if mode is Mode.DENY:
        return _refuse(agent, tool, tool_input, scope, POLICY, f"the policy for {scope} is deny",
                       f"permission denied: your policy refuses {scope} without asking")
    tainted = agent.taint is not None and risk is Risk.OUTWARD
    if tainted or mode is Mode.CONFIRM:
        why = (f"{agent.name} {agent.taint.reason}, so every outward call is confirmed, one at a time"
               if tainted and agent.taint is not None else
               f"{tool.name} is confirmed every time: no lease or policy covers it" if always else
               f"{scope} is an outward action: it is confirmed every time" if risk is Risk.OUTWARD else
               f"your policy for {scope} is to confirm every call")
        if agent.unattended:
            note = getattr(s.approver, "note_refusal", None)  # an automation run: to the Inbox
            if note is not None:
                note(agent.id, scope, f"{agent.name} wanted to call {tool.name} ({scope}); refused at once: {why}")
            return _refuse(agent, tool, tool_input, scope, KERNEL, f"unattended: {why}",
                           f"permission denied: nobody is there to confirm {tool.name} ({why})")
        try:
            detail = tuple(tool.detail_of(agent.id, tool_input)) if tool.detail_of is not None else ()
        except ToolFailure as exc:  # e.g. a schedule the kernel refuses: the model can fix it; nobody is asked
            return Refusal(exc.message, Outcome.ERROR)
        except Exception as exc:  # noqa: BLE001 - a tool bug is a result, never the agent's death
            return Refusal(f"{tool.name} could not describe this call: {type(exc).__name__}: {exc}", Outcome.ERROR)
        user_words = _user_text(agent)
        ask = OnceAsk(why, highlights(tool_input, agent.untrusted_read),
                      flags(tool_input, agent.untrusted_read, user_words), detail)
        return await confirm_once(agent, tool, tool_input, scope, call_id, ask)
    if mode is Mode.AUTO:
        lease = s.leases.find(agent.id, scope)
        return lease if lease is not None else s.leases.grant(agent.id, scope, s.settings.default_lease_s, by=POLICY)
    if agent.unattended and s.leases.find(agent.id, scope) is None and not _automation_run(agent):
        return _refuse(agent, tool, tool_input, scope, KERNEL, "unattended: no lease covers it",
                       f"permission denied: no lease covers {scope} and nobody is there to grant one")
    return await acquire(agent, tool, tool_input, scope, call_id)


def _automation_run(agent: AgentProcess) -> bool:
    """An automation run's lease requests go to its gate (kernel/automations/gate.py), which refuses them at
    once, by ``automation:<id>``, into the Inbox, counting toward ``blocked``; nobody is ever asked."""
    unattended = getattr(agent.services.approver, "unattended", None)
    return bool(unattended is not None and unattended(agent.id))


def _refuse(agent: AgentProcess, tool: ToolDescriptor, tool_input: Mapping[str, Any], scope: str, by: str,
            reason: str, message: str) -> Refusal:
    agent.services.record(Denied(actor=by, tool=tool.name, scope=scope, subject=agent.id, input=dict(tool_input),
                                 reason=reason))
    return Refusal(message, Outcome.DENIED)


def _user_text(agent: AgentProcess) -> list[str]:
    """What the user wrote to the agent (an address there is the user's, not the page's)."""
    return [p.text for m in agent.conversation if m.role == "user" for p in m.parts if isinstance(p, TextPart)]
