"""One automation run: a fresh unattended agent, leases from the policy, the objective, an outcome.

The run's first message carries the objective, the account context (user,
date and time in the automation's timezone, workspace) and the prior run's
state as the kernel recorded it (outcome, final reply, files changed per the
ledger), never notes the model kept about itself. Leases are granted by
``automation:<id>`` at the start and revoked at the end at the latest; the
time limit is a wait on the kernel clock. The outcome is read from what the
agent and the ledger say when it ends; a run whose every action was refused is
``blocked`` (it did not do its job), not ``succeeded``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ledger import UntrustedSeen

from ..agents.provenance import admit_untrusted
from ..core.messages import Message, TextPart
from ..core.states import AgentState
from .model import Automation
from .schedule import local_time
from .store import RunRecord

if TYPE_CHECKING:
    from .gate import RunWatch, UnattendedGate
    from .host import AutomationHost

NOTHING_TO_DO = "NOTHING TO DO"
OFFLINE_KINDS = ("connection", "timeout")
STOPPED_DETAIL = "the kernel stopped while it ran; not run again for this slot"


@dataclass(frozen=True)
class Slot:
    automation: str
    at: float
    attempt: int
    manual: bool = False


def actor_of(a: Automation) -> str:
    return f"automation:{a.id}"


def run_message(host: "AutomationHost", a: Automation, slot: Slot, workspace: str, prior: RunRecord | None) -> str:
    now = host.clock.now()
    lines = [
        f"Objective: {a.objective}",
        "",
        "Context:",
        f"- You run for {host.settings.user_name}, unattended: nobody is at the desktop to answer.",
        f"- It is {local_time(now, a.timezone)} ({a.timezone}); this run is for the slot of {local_time(slot.at, a.timezone)}.",
        f"- Workspace: {workspace}",
        "- Your leases come from the automation's policy: " + (
            ", ".join(p.scope for p in a.policy) if a.policy else "none") + ". Anything else is refused at once.",
        f"- If there is nothing to do, begin your reply with {NOTHING_TO_DO} and change nothing.",
        "",
    ]
    if prior is None:
        lines.append("Previous run: none (this is the first).")
    else:
        lines += [f"Previous run ({local_time(prior.ts, a.timezone)}): {prior.outcome}"
                  + (f" — {prior.detail}" if prior.detail else ""),
                  "Its final reply: " + (prior.summary or "(none)"),
                  "Files it changed: " + (", ".join(prior.files) if prior.files else "none")]
    return "\n".join(lines)


async def run_slot(host: "AutomationHost", gate: "UnattendedGate", a: Automation, slot: Slot, watch: "RunWatch",
                   prior: RunRecord | None, agents_note: Callable[[str], None]) -> RunRecord:
    """Run one claimed slot to its end and say how it ended (the caller records it)."""
    actor = actor_of(a)
    try:
        info = host.spawn(f"{a.name} · {local_time(slot.at, a.timezone)}", provider=a.provider or None,
                            model=a.model or None, budget=a.budget, workspace=a.workspace or None,
                            unattended=True,  # nobody is there: tainted R3 calls are refused at once
                            fallbacks=tuple(a.fallbacks) or None, any_vendor=a.any_vendor)
    except Exception as exc:  # noqa: BLE001 - a run that cannot start is a failed run, not a dead scheduler
        return _record(host, a, slot, None, "failed", f"could not start: {exc}")
    agents_note(info.id)
    gate.runs[info.id] = watch
    def block() -> None:
        host.kill(info.id, by=actor, reason="blocked: three requests outside the policy in a row")

    watch.on_block = block
    timed_out = False
    try:
        for item in a.policy:
            host.grant_lease(info.id, item.scope, min(item.duration_s, a.time_limit_s), by=actor)
        message = run_message(host, a, slot, info.workspace, prior)
        _carry_taint(host, prior, info.id, message)
        host.send(info.id, message)
        task = asyncio.ensure_future(host.wait(info.id))
        limit = asyncio.ensure_future(host.clock.sleep(a.time_limit_s))
        try:
            done, _ = await asyncio.wait({task, limit}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            limit.cancel()
        if task not in done:
            timed_out = True
            host.kill(info.id, by=actor, reason="the run reached its time limit")
            await asyncio.wait({task})
        return _outcome(host, a, slot, info.id, timed_out, watch)
    finally:
        gate.runs.pop(info.id, None)
        host.revoke_leases(info.id, "the automation run ended", by=actor)


def _carry_taint(host: "AutomationHost", prior: RunRecord | None, agent_id: str, message: str) -> None:
    """The first message quotes the previous run's reply, file names and failure as if the user wrote them:
    when that run had read untrusted content they may carry its instructions, so this run starts tainted
    (recorded, so a restart keeps it) and its outward calls are refused like the previous run's."""
    if prior is None or not prior.agent:
        return
    seen = host.entries(prior.agent, UntrustedSeen.KIND, limit=1)
    if not seen:
        return
    source = f"the previous run {prior.agent}, which read untrusted content (#{seen[0].seq})"
    admit_untrusted(host.process(agent_id), "automation", source, message, seen[0].seq)


def _outcome(host: "AutomationHost", a: Automation, slot: Slot, agent_id: str, timed_out: bool,
             watch: "RunWatch") -> RunRecord:
    process = host.process(agent_id)
    if watch.blocked:
        return _record(host, a, slot, agent_id, "blocked", "three lease requests outside the policy in a row")
    if timed_out:
        return _record(host, a, slot, agent_id, "timed-out", "stopped at its time limit")
    state = process.state
    if state is AgentState.FAILED:
        offline = process.failure_kind in OFFLINE_KINDS
        return _record(host, a, slot, agent_id, "failed", ("offline: " if offline else "") + process.reason)
    if state is AgentState.PAUSED:
        over = process.budget.reached
        host.kill(agent_id, by=actor_of(a), reason="the run ended " + ("at its budget" if over else "paused"))
        return _record(host, a, slot, agent_id, "over-budget" if over else "cancelled", process.reason)
    if state is AgentState.KILLED:
        return _record(host, a, slot, agent_id, "cancelled", process.reason)
    if state is AgentState.INTERRUPTED:  # a clean kernel stop: as after a kill -9, never re-run for its slot
        return _record(host, a, slot, agent_id, "interrupted", STOPPED_DETAIL)
    text = _final_text(process.conversation)
    files = _files(host, agent_id)
    if watch.refused and not watch.went_through:  # it tried to act and nothing it tried was let through
        return _record(host, a, slot, agent_id, "blocked", f"every action it tried was refused: {watch.refused} "
                                                           "outside its policy, waiting in the Inbox", text, files)
    if text.lstrip().upper().startswith(NOTHING_TO_DO) and not files:
        return _record(host, a, slot, agent_id, "nothing-to-do", "", text, files)
    return _record(host, a, slot, agent_id, "succeeded", "", text, files)


def _record(host: "AutomationHost", a: Automation, slot: Slot, agent: str | None, outcome: str, detail: str,
            summary: str = "", files: tuple[str, ...] = ()) -> RunRecord:
    return RunRecord(a.id, slot.at, slot.attempt, host.clock.now(), agent, outcome, detail, summary[:4000], files)


def _final_text(conversation: tuple[Message, ...]) -> str:
    for message in reversed(conversation):
        if message.role == "assistant":
            text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
            if text.strip():
                return text.strip()
    return ""


def _files(host: "AutomationHost", agent_id: str) -> tuple[str, ...]:
    """The files the run changed, from its fs.write entries."""
    entries = host.entries(agent_id, "fs.write")
    return tuple(sorted({str(getattr(e, "path", "")) for e in entries}))
