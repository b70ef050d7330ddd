"""The system prompt: who the agent is, the house rules, and a fresh digest.

Rebuilt before every request, so the model always sees its live leases, the
budget it has left and what other agents changed lately. Written in plain
language; it asks the model to ask for as little as the task needs, to say
what it intends before a write, and not to narrate tool calls the user can
already see.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ..leases.lease import describe_left
from ..trust.markers import PROMPT_RULE

if TYPE_CHECKING:
    from .process import AgentProcess

DIGEST_CHANGES = 8

RULES = """\
You run inside Agentdesk, a desktop where every agent is a process with no permissions at birth.
- Tools run only under leases the user grants for a limited time and a named scope (fs.read, fs.write, shell.exec).
  When you call a tool you have no lease for, the user is asked; ask for as little as the task needs.
- Every tool call and file change is recorded in a ledger the user can audit and undo.
- Before you change files, say in one sentence what you intend to change.
- The user sees each tool call as it happens: do not narrate your tool calls, report what matters.
- A refused or expired permission is the user's decision: do not retry the same call; explain or ask.
- File paths are relative to the workspace root."""


def build_system_prompt(agent: "AgentProcess") -> str:
    s = agent.services
    now = s.clock.now()
    lines = [
        f"You are {agent.name} (agent {agent.id}), working for {s.settings.user_name}.",
        f"Today is {datetime.fromtimestamp(now, timezone.utc):%A %d %B %Y} (UTC).",
        f"Workspace: {agent.workspace}",
        (
            "A person is at the desktop and can answer permission requests."
            if s.attached else
            "No desktop is attached: permission requests you make may go unanswered and be refused."
        ),
        "",
        RULES,
        PROMPT_RULE,
        *_taint_lines(agent),
        "",
        "Current state:",
        f"- Budget: {agent.budget.left:,} of {agent.budget.limit:,} tokens left.",
        _leases_line(agent, now),
        *_changes_lines(agent),
        *s.extensions.prompt_lines(agent),  # AGENTS.md and skills (kernel/extensions/context.py)
    ]
    return "\n".join(lines)


def _taint_lines(agent: "AgentProcess") -> list[str]:
    if agent.taint is None:
        return []
    return [f"- You have {agent.taint.reason}: each outward call you make now waits for the user's confirmation"
            + (", and you run unattended, so outward calls are refused." if agent.unattended else ".")]


def _leases_line(agent: "AgentProcess", now: float) -> str:
    leases = agent.services.leases.live(agent.id)
    if not leases:
        return "- Leases: none yet."
    held = ", ".join(f"{l.scope} ({describe_left(l.seconds_left(now))})" for l in leases)
    return f"- Leases: {held}."


def _changes_lines(agent: "AgentProcess") -> list[str]:
    recent = agent.services.recent.by_others(agent.id, DIGEST_CHANGES)
    if not recent:
        return ["- Recent changes by others: none."]
    out = ["- Recent changes by others (newest first):"]
    root = agent.root
    for change in recent:
        out.append(f"  - {change.actor} {change.verb} {root.relative(Path(change.path))} (#{change.seq})")
    return out
