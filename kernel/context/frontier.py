"""The execution frontier: what the agent has done since the user last spoke, written by the kernel.

A summary written by the model can forget that a command already ran or a
file is already written, and the agent then does it again (peers' users
report exactly that after compaction). So the part of the compacted context
that says what was done is not the model's: it is read from the ledger. Every
tool call since the last user message with its outcome, each file written with
its current hash and whether it was undone since, each outward call (mail,
events) done, failed or unknown, and the leases live now.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from ledger import Denied, Entry, FileChange, Intent, Outcome, ToolCall, ToolError, ToolResult

INPUT_CHARS = 160  # a call's input, as shown: enough to tell two calls apart


@dataclass(frozen=True)
class LiveLease:
    scope: str
    until: str  # as the state block says it (HH:MM UTC)


def frontier(entries: Iterable[Entry], undone: Mapping[int, int], leases: Sequence[LiveLease],
             relative: Callable[[str], str]) -> str:
    """The frontier as text, from the agent's entries since its last user message (oldest first)."""
    calls: dict[int, ToolCall] = {}
    outcome: dict[int, str] = {}
    writes: list[FileChange] = []
    intents: dict[int, Intent] = {}
    outward: dict[int, str] = {}
    for e in entries:
        match e:
            case ToolCall():
                calls[e.seq] = e
            case ToolResult(cause=cause) if isinstance(cause, int):
                outcome[cause] = "ok"
            case ToolError(cause=cause) if isinstance(cause, int):
                outcome[cause] = f"error: {_short(e.message)}"
            case Denied():
                pass
            case FileChange():
                writes.append(e)
            case Intent():
                intents[e.seq] = e
            case Outcome(cause=cause) if isinstance(cause, int):
                outward[cause] = e.status if isinstance(e.status, str) else "unknown"
    lines = ["[Agentdesk frontier: what you did since the user's last message, from the ledger]"]
    if calls:
        lines.append("Tool calls, in order:")
        lines += [f"- #{seq} {c.tool}({_short(_input(c.input), INPUT_CHARS)}) → {outcome.get(seq, 'no outcome recorded')}"
                  for seq, c in calls.items()]
    else:
        lines.append("Tool calls: none.")
    if writes:
        lines.append("Files written (the hash is of the content now on record):")
        for w in writes:
            state = "undone since" if w.seq in undone else "deleted" if w.after is None else f"sha256 {str(w.after)[:12]}"
            lines.append(f"- {relative(w.path)}: {state} (#{w.seq})")
    if intents:
        lines.append("Outward calls (never repeat one that is done or unknown; ask the user):")
        for seq, i in intents.items():
            lines.append(f"- #{seq} {i.tool} {i.target or i.key}: {outward.get(seq, 'unknown')}")
    lines.append("Leases live now: " + (", ".join(f"{l.scope} (until {l.until} UTC)" for l in leases) or "none") + ".")
    return "\n".join(lines)


def _input(value: object) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={v!r}" for k, v in value.items())
    return ""


def _short(text: object, limit: int = 200) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"
