"""Words and numbers the desktop's windows show, as plain functions.

Everything a person reads on the Ask window, the lease dialog, the ledger
view and the dialogs (a tool card's one-line summary,
a budget's "41,200 / 200,000 tokens", a countdown's "1:42", the reason a call
failed) is computed here from kernel values, without Qt, so plain pytest can
check it and every view says it the same way. (Was ``ask_text.py``: it
serves every window, not just Ask.)
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any, Mapping

from kernel.api import LeaseRequest, Outcome, describe_duration, plural


__all__ = ["plural"]  # re-exported: the views import it from here

# ---- numbers ---------------------------------------------------------------------


def format_tokens(used: int, budget: int) -> str:
    """``41,200 / 200,000 tokens``."""
    return f"{used:,} / {budget:,} tokens"


def format_countdown(seconds: float) -> str:
    """Seconds left as ``m:ss`` (``1:42``), or ``h:mm:ss`` past an hour; never negative."""
    s = max(0, int(seconds + 0.999))  # round up: "0:00" only when it is really over
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def expiry_text(seconds_left: float) -> str:
    return f"This request expires in {format_countdown(seconds_left)} if unanswered."


def format_duration_ms(ms: float) -> str:
    """``3 ms``, ``1.2 s``, ``2 min 5 s``."""
    if ms < 1000:
        return f"{max(0, round(ms))} ms"
    s = ms / 1000
    if s < 60:
        return f"{s:.1f} s"
    return f"{int(s // 60)} min {int(s % 60)} s"


def suggest_budget(used: int, budget: int) -> int:
    """What "Raise budget…" offers first: double the budget, and at least 10,000 above what is used."""
    return max(budget * 2, used + 10_000)


# ---- diffs -----------------------------------------------------------------------


def diff_counts(diff: str) -> tuple[int, int]:
    """Lines added and removed in a unified diff (headers not counted)."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            continue
        if line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    return added, removed


def format_counts(added: int, removed: int) -> str:
    """``+12 −3`` (a real minus sign, as in the sketches)."""
    return f"+{added} \u2212{removed}"


def diff_line_kind(line: str) -> str:
    """How to colour one diff line: ``add``, ``remove``, ``hunk``, ``header`` or ``context``."""
    if line.startswith(("+++", "---")):
        return "header"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "remove"
    return "context"


# ---- tool calls ------------------------------------------------------------------


# Characters that change how the text around them reads without being seen: bidi overrides and isolates
# (``invoice\u202efdp.sh`` reads as ``invoicehs.pdf``), zero-width ones, and C0/C1 controls (not line breaks
# or tabs). What a model sent is shown with these as visible escapes.
_UNSEEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def visible(text: str) -> str:
    """``text`` with every character that would reorder or hide what is read written as ``\\uXXXX``."""
    return _UNSEEN.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def plain_tip(text: str | None) -> str | None:
    """A tooltip that shows ``text`` as written. Qt reads a tooltip that looks like HTML as rich text (a file
    name ``<b>fine</b>``, a provider's error page), so text holding markup is escaped into a paragraph that
    keeps its lines."""
    if not text or ("<" not in text and "&" not in text):
        return text
    return "<p style='white-space:pre-wrap'>" + html.escape(text, quote=False) + "</p>"


def summarize_input(tool: str, tool_input: Mapping[str, Any], limit: int = 80) -> str:
    """One line saying what a call works on: its path, ``src → dst``, the command, the pattern."""
    get = tool_input.get
    if isinstance(get("src"), str) and isinstance(get("dst"), str):
        text = f"{get('src')} \u2192 {get('dst')}"
    elif isinstance(get("command"), str):
        text = tool_input["command"]
    elif isinstance(get("pattern"), str):
        text = f"{get('pattern')!r}" + (f" in {get('path')}" if isinstance(get("path"), str) else "")
    elif isinstance(get("path"), str):
        text = tool_input["path"]
    else:
        text = next((v for v in tool_input.values() if isinstance(v, str)), "")
    text = visible(" ".join(str(text).split()))
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


@dataclass(frozen=True)
class CallOutcome:
    """How a call ended, as its card shows it: the kernel's outcome and the reason in words."""

    kind: Outcome  # ok · error · denied · expired · cancelled (a card its agent left unfinished)
    words: str     # the reason, in words, for anything but ok

    @property
    def failed(self) -> bool:
        return self.kind.failed

    @property
    def mark(self) -> str:
        return "\u2717" if self.failed else "\u2713"


def describe_outcome(outcome: Outcome, content: str) -> CallOutcome:
    """What happened to a call, from the kernel's ``ToolCallFinished``: its outcome, and the first
    line of what the model was told as the reason."""
    if not outcome.failed:
        return CallOutcome(outcome, "")
    first = content.strip().splitlines()[0] if content.strip() else "the call failed"
    return CallOutcome(outcome, first)


# ---- lease requests --------------------------------------------------------------


def lease_title(request: LeaseRequest) -> str:
    if request.once:
        return confirm_title(request)
    return f"{request.agent_name} ({request.agent_id}) asks for a lease"


def lease_action(request: LeaseRequest) -> str:
    """``to call fs_write on notes/todo.md``."""
    target = visible(request.preview.path) if request.preview and request.preview.path else summarize_input(
        request.tool, request.input)
    return f"to call {request.tool}" + (f" on {target}" if target else "")


def lease_waiting_text(request: LeaseRequest, shortcut: str) -> str:
    """The flag a waiting request puts on its Ask window."""
    if request.once:
        return (f"\u25c6 waiting \u2014 confirmation: {request.scope} {lease_action(request)}, this once. "
                f"Press {shortcut} or click here to answer.")
    return (f"\u25c6 waiting \u2014 lease request: {request.scope} {lease_action(request)}. "
            f"Press {shortcut} or click here to answer.")


@dataclass(frozen=True)
class GrantChoice:
    label: str
    seconds: float
    is_default: bool


def grant_choices(request: LeaseRequest) -> list[GrantChoice]:
    """One button per offered duration, in the kernel's order; the Settings default says so."""
    if request.once:
        return [GrantChoice("Allow once", 0.0, True)]
    out = []
    for seconds in request.durations:
        is_default = seconds == request.default_duration
        label = describe_duration(seconds) + (" (default)" if is_default else "")
        out.append(GrantChoice(label, seconds, is_default))
    return out


def format_input(tool_input: Mapping[str, Any]) -> str:
    """A call's input for reading: one ``key: value`` per line; multi-line strings as indented blocks."""
    import json

    lines: list[str] = []
    for key, value in tool_input.items():
        if isinstance(value, str) and "\n" in value:
            lines.append(f"{key}:")
            lines.extend("    " + line for line in value.rstrip("\n").split("\n"))
        elif isinstance(value, str):
            lines.append(f"{key}: {value}")
        else:
            lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return visible("\n".join(lines))


def relative_diff(diff: str, workspace: str) -> str:
    """A ledger diff with its absolute ``a/…``/``b/…`` header paths made relative to the workspace."""
    root = workspace.rstrip("/") + "/"
    out = []
    for line in diff.split("\n"):
        for prefix in ("--- a", "+++ b"):
            if line.startswith(prefix + root):
                line = prefix[:4] + prefix[4] + "/" + line[len(prefix + root):]
        out.append(line)
    return "\n".join(out)


# ---- trust: tainted agents and one-off confirmations ----------------------------------


def taint_text(info_name: str, reason: str) -> str:
    """The tainted badge of an Ask window (``reason`` is ``AgentInfo.tainted``)."""
    return (f"\u26a0 tainted \u2014 {info_name} {reason}. Outward actions (sending, commands with network) "
            "ask you every time.")


def confirm_title(request: LeaseRequest) -> str:
    return f"{request.agent_name} ({request.agent_id}) asks to make one call"


def highlight_spans(text: str, pieces: tuple[str, ...]) -> list[tuple[str, bool]]:
    """``text`` cut into (part, highlighted) runs, every case-insensitive occurrence of a piece highlighted."""
    low = text.lower()
    marks = [False] * len(text)
    for piece in pieces:
        p = piece.lower()
        if not p:
            continue
        start = low.find(p)
        while start != -1:
            for i in range(start, start + len(p)):
                marks[i] = True
            start = low.find(p, start + 1)
    spans: list[tuple[str, bool]] = []
    for i, ch in enumerate(text):
        if spans and spans[-1][1] == marks[i]:
            spans[-1] = (spans[-1][0] + ch, marks[i])
        else:
            spans.append((ch, marks[i]))
    return spans
