"""The system prompt, fixed for the conversation, and the state block that follows it at the tail.

Providers bill an unchanged prefix at a tenth to a quarter of the price, and
the system prompt comes before the whole conversation: when it changed on
every request (budget, lease minutes, others' changes, the date) nothing
after it was ever read from cache (issue 24 measured 0% on Anthropic). So it
is built once per conversation (who the agent is, the rules, the workspace,
AGENTS.md and the skills, the date and whether a desktop was attached at that
moment) and rebuilt only when what it says changes in kind: the extensions'
lines (a skill enabled or loaded, AGENTS.md edited). What changes from request
to request is the state block (``kernel.context.state``), appended to the
newest user turn or tool results only when it changed. It asks the model to
ask for as little as the task needs, to say what it intends before a write,
and not to narrate tool calls the user can already see.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ..context.state import Change, State, budget_step, day_of, lease_state
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
- File paths are relative to the workspace root.
- A block headed [Agentdesk state] at the end of a turn is written by Agentdesk, not by the user: your budget,
  leases, others' changes and the date as they are now. It is said again only when something in it changed."""


def system_prompt(agent: "AgentProcess") -> str:
    """The conversation's system prompt: the one built before, unless what it says changed in kind."""
    ctx = agent.context
    extension_lines = agent.services.extensions.prompt_lines(agent)  # AGENTS.md and skills (extensions/context.py)
    basis = hashlib.sha256("\n".join(extension_lines).encode("utf-8", "surrogatepass")).hexdigest()
    if ctx.system is None or basis != ctx.basis:
        ctx.system, ctx.basis = _build(agent, extension_lines), basis
    return ctx.system


def _build(agent: "AgentProcess", extension_lines: list[str]) -> str:
    s = agent.services
    now = s.clock.now()
    return "\n".join([
        f"You are {agent.name} (agent {agent.id}), working for {s.settings.user_name}.",
        f"This conversation began on {datetime.fromtimestamp(now, timezone.utc):%A %d %B %Y} (UTC).",
        f"Workspace: {agent.workspace}",
        (
            "When it began a person was at the desktop and could answer permission requests."
            if s.attached else
            "When it began no desktop was attached: permission requests may go unanswered and be refused."
        ),
        "",
        RULES,
        PROMPT_RULE,
        *extension_lines,
    ])


def current_state(agent: "AgentProcess") -> State:
    """The agent's state in coarse steps, as the state block tells it."""
    s = agent.services
    now = s.clock.now()
    leases = tuple(lease_state(l.scope, l.until, now) for l in s.leases.live(agent.id))
    root = agent.root
    changes = tuple(Change(c.seq, c.actor, c.verb, str(root.relative(Path(c.path))))
                    for c in s.recent.by_others(agent.id, DIGEST_CHANGES))
    return State(agent.budget.limit, budget_step(agent.budget.left, agent.budget.limit), leases, changes,
                 s.attached, day_of(now), _taint_line(agent))


def _taint_line(agent: "AgentProcess") -> str:
    if agent.taint is None:
        return ""
    # the first source only: the count grows with every untrusted read, and the taint itself never changes
    return (f"- You have read untrusted content (first from {agent.taint.source}): each outward call you make now waits for the user's confirmation"
            + (", and you run unattended, so outward calls are refused." if agent.unattended else "."))
