"""The user's hooks around one call: run the ones whose scope covers it, record each in the ledger.

``before`` hooks run in order after the call is recorded and before the tool
runs; the first that does not end well stops the call (its reason is what
the model reads). ``after`` hooks run in order on the result; the stdout of
one that exits 0 becomes what the model reads (formatting).
"""

from __future__ import annotations

from typing import Any, Mapping

from ledger import HookRun

from ..leases.lease import scope_covers
from ..redaction.cuts import finder_of
from ..trust.hook_config import Hook
from ..trust.hooks import HookOutcome, run_hook
from ..core.json_safe import clean_text
from ..trust.untrusted import capped
from .process import AgentProcess


def hooks_for(agent: AgentProcess, when: str, scope: str) -> list[Hook]:
    return [h for h in agent.services.settings.hooks if h.when == when and scope_covers(h.scope, scope)]


async def before(agent: AgentProcess, tool: str, scope: str, risk: str, tool_input: Mapping[str, Any],
                 call_seq: int) -> str | None:
    """Why the call must not run (a veto, a broken or hanging hook), or None."""
    for hook in hooks_for(agent, "before", scope):
        payload = {"hook": "before", "agent": agent.id, "tool": tool, "scope": scope, "risk": risk,
                   "input": dict(tool_input), "call_seq": call_seq}
        outcome = await run_hook(hook, payload)
        _record(agent, tool, call_seq, outcome)
        if outcome.stops:
            return outcome.reason()
    return None


async def after(agent: AgentProcess, tool: str, scope: str, risk: str, tool_input: Mapping[str, Any],
                call_seq: int, ok: bool, content: str) -> str:
    """What the model reads after the after-hooks had their say."""
    for hook in hooks_for(agent, "after", scope):
        payload = {"hook": "after", "agent": agent.id, "tool": tool, "scope": scope, "risk": risk,
                   "input": dict(tool_input), "call_seq": call_seq, "ok": ok, "content": content}
        outcome = await run_hook(hook, payload)
        _record(agent, tool, call_seq, outcome)
        if outcome.outcome == "ok" and outcome.stdout.strip():
            content = clean_text(outcome.stdout)
    return content


def _record(agent: AgentProcess, tool: str, call_seq: int, outcome: HookOutcome) -> None:
    agent.services.record(HookRun(actor=agent.id, cause=call_seq, tool=tool, hook=outcome.hook.name,
                                  when=outcome.hook.when, outcome=outcome.outcome, exit_code=outcome.exit_code,
                                  message=capped(clean_text(outcome.message),
                                                 finder=finder_of(agent.services.ledger.redactor)),
                                  duration_ms=outcome.duration_ms))
