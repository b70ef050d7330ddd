"""Terminal views for ``agentdesk ask``: streamed text, tool lines, and lease prompts.

The prompt reads stdin in a worker thread so the event loop (and the
request's expiry) keeps running while the person thinks. A one-off
confirmation (a mail to send, an event to create, any outward call) shows
everything that would go out before it asks: every argument whole, and the
tool's preview (``CallPreview``: the account and the exact message, as the
desktop dialog shows it), escaped, in pages of the terminal's height.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
from typing import TextIO

from ..leases.approver import Decision, Denial, Grant, LeaseRequest
from ..core.events import Event, TextDelta, ToolCallFinished, ToolCallStarted, ToolProgress
from ..leases.lease import describe_duration
from ..core.states import AgentState

EXIT_IDLE, EXIT_PAUSED, EXIT_FAILED, EXIT_INTERRUPTED = 0, 3, 4, 130


def exit_status(final_state: AgentState, reason: str, interrupted: bool, stderr: TextIO) -> int:
    """How ``agentdesk ask`` ends (in-process or attached): the agent's last state said on stderr,
    and the exit status for it."""
    if interrupted or final_state.final:
        print("interrupted: the agent was killed", file=stderr)
        return EXIT_INTERRUPTED
    if final_state is AgentState.PAUSED:
        print(f"paused: {reason}", file=stderr)
        return EXIT_PAUSED
    if final_state is AgentState.FAILED:
        print(f"failed: {reason}", file=stderr)
        return EXIT_FAILED
    return EXIT_IDLE

SUMMARY_KEYS = ("path", "src", "command", "pattern")
PROGRESS_LINES = 20  # the most progress lines one call prints


def _count(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,.1f}"

# What the model sent is shown as text, never obeyed by the terminal: C0/C1 controls (a carriage return,
# ESC sequences that erase a line or recolour the prompt, OSC 52 clipboard writes) and the bidi controls
# that reorder what is read are written as visible escapes (\x1b, \u202e).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_OR_BREAK = re.compile(_CONTROL.pattern[:-1] + "\n\t]")


def shown(text: object, lines: bool = False) -> str:
    """``text`` safe to print on a terminal: one line unless ``lines`` (which keeps line breaks and tabs)."""
    pattern = _CONTROL if lines else _CONTROL_OR_BREAK
    return pattern.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(text))


class ToolLines:
    """Text deltas to stdout; one line per finished tool call to stderr."""

    def __init__(self, agent_id: str, stdout: TextIO, stderr: TextIO) -> None:
        self.agent_id = agent_id
        self.stdout = stdout
        self.stderr = stderr
        self._mid_line = False
        self._tty = _isatty(stdout)
        self._tools: dict[str, str] = {}                       # call id → tool, for its progress lines
        self._progress_said: dict[str, tuple[int, int]] = {}   # call id → (last tenth said, lines said)

    def __call__(self, event: Event) -> None:
        match event:
            case TextDelta(agent_id=aid, text=text) if aid == self.agent_id:
                self.stdout.write(shown(text, lines=True) if self._tty else text)  # piped: the reply as sent
                self.stdout.flush()
                self._mid_line = not text.endswith("\n")
            case ToolCallStarted(agent_id=aid) if aid == self.agent_id:
                self._tools[event.call_id] = event.tool
                self._end_text_line()
            case ToolProgress(agent_id=aid) if aid == self.agent_id:
                self._progress(event)
            case ToolCallFinished(agent_id=aid) if aid == self.agent_id:
                mark = "ok" if event.ok else "error"
                detail = "" if event.ok else f": {shown(event.content, lines=True)}"
                print(f"[tool] {shown(event.tool)} {mark} ({event.duration_ms:.0f} ms){detail}", file=self.stderr, flush=True)

    def _progress(self, event: ToolProgress) -> None:
        """A running call's progress, one line per tenth of the way (or per notice, at most
        ``PROGRESS_LINES`` of them, when the server gives no total): a chatty server cannot flood the terminal."""
        shown_before = self._progress_said.get(event.call_id, (-1, 0))
        step = int(10 * event.progress / event.total) if event.total else shown_before[1] + 1
        if step <= shown_before[0] or shown_before[1] >= PROGRESS_LINES:
            return
        self._progress_said[event.call_id] = (step, shown_before[1] + 1)
        self._end_text_line()
        done = f"{_count(event.progress)} of {_count(event.total)}" if event.total else f"{_count(event.progress)} so far"
        note = f": {shown(event.message)}" if event.message else ""
        print(f"[tool] {shown(self._tools.get(event.call_id, 'a tool'))} {done}{note}", file=self.stderr, flush=True)

    def _end_text_line(self) -> None:
        if self._mid_line:
            self.stdout.write("\n")
            self.stdout.flush()
            self._mid_line = False

    def finish(self) -> None:
        self._end_text_line()


def summarize_input(tool_input: dict) -> str:
    for key in SUMMARY_KEYS:
        if key in tool_input:
            return f"{key}={shown(tool_input[key])}"
    text = shown(json.dumps(tool_input, ensure_ascii=False))
    return text if len(text) <= 80 else text[:77] + "..."


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class TerminalApprover:
    """Asks on the terminal: a number picks a duration, anything else denies."""

    def __init__(self, stdin: TextIO, stderr: TextIO) -> None:
        self.stdin = stdin
        self.stderr = stderr

    async def decide(self, request: LeaseRequest) -> Decision:
        if request.once:
            return await self._confirm(request)
        choices = "  ".join(f"[{i}] {describe_duration(d)}" for i, d in enumerate(request.durations, 1))
        print(f"\n{shown(request.agent_name)} ({request.agent_id}) asks for {shown(request.scope)} "
              f"to call {shown(request.tool)} {summarize_input(dict(request.input))}", file=self.stderr)
        if request.preview is not None and request.preview.diff:
            print(shown(request.preview.diff.rstrip("\n"), lines=True), file=self.stderr)
        for note in request.notes:
            print(f"note: {shown(note)}", file=self.stderr)
        print(f"Grant {request.scope} for: {choices}  [d] Deny > ", end="", file=self.stderr, flush=True)
        answer = (await asyncio.to_thread(self.stdin.readline)).strip().lower()
        if answer.isdigit() and 1 <= int(answer) <= len(request.durations):
            return Grant(request.durations[int(answer) - 1])
        return Denial()

    async def _confirm(self, request: LeaseRequest) -> Decision:
        """A one-off confirmation: everything that would go out, why it asks every time, what looks wrong,
        then y allows this call only. Stopping the pages (q) denies: it was not all seen."""
        print(f"\n{shown(request.agent_name)} ({request.agent_id}) wants to call {shown(request.tool)} "
              f"({shown(request.scope)}) {summarize_input(dict(request.input))}", file=self.stderr)
        if not await self._paged(whole_call(request)):
            print("denied: not everything was shown", file=self.stderr)
            return Denial()
        print(f"asks every time: {shown(request.reason)}", file=self.stderr)
        for line in request.detail:
            print(f"  {shown(line)}", file=self.stderr)
        for piece in request.highlights:
            print(f"from untrusted content: {shown(piece)}", file=self.stderr)
        for flag in request.flags:
            print(f"warning: {shown(flag)}", file=self.stderr)
        for note in request.notes:
            print(f"note: {shown(note)}", file=self.stderr)
        print("Allow this one call? [y] Allow once  [N] Deny > ", end="", file=self.stderr, flush=True)
        answer = (await asyncio.to_thread(self.stdin.readline)).strip().lower()
        return Grant(0.0) if answer in ("y", "yes") else Denial()

    async def _paged(self, lines: list[str]) -> bool:
        """``lines`` on stderr in pages of the terminal's height; False when the person stops (q) or stdin ends."""
        rows, cols = terminal_size(self.stdin)
        cut = pages(lines, rows, cols)
        for number, page in enumerate(cut, 1):
            for line in page:
                print(line, file=self.stderr)
            if number < len(cut):
                print(f"-- page {number} of {len(cut)}: Enter shows more, q stops (and denies) > ", end="",
                      file=self.stderr, flush=True)
                answer = await asyncio.to_thread(self.stdin.readline)
                if not answer or answer.strip().lower() in ("q", "n", "d"):
                    return False
        return True


def whole_call(request: LeaseRequest) -> list[str]:
    """Every line of what the call would send: its arguments whole, then the tool's preview (summary, and
    the exact message or event), each escaped (controls and bidi codes shown as escapes)."""
    out = ["arguments:"]
    for key, value in request.input.items():
        if isinstance(value, str) and "\n" in value:
            out.append(f"  {shown(key)}:")
            out.extend(f"    {shown(line, lines=True)}" for line in value.split("\n"))
        else:
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            out.append(f"  {shown(key)}: {shown(text)}")
    preview = request.preview
    if preview is not None and preview.summary:
        out.append(f"it would: {shown(preview.summary)}")
    if preview is not None and preview.diff:
        out.append("exactly what will be sent:" if preview.path is None else f"diff of {shown(preview.path)}:")
        out.extend(f"  {shown(line, lines=True)}" for line in preview.diff.rstrip("\n").split("\n"))
    return out


def terminal_size(stdin: object) -> tuple[int, int]:
    """(rows, columns) of the person's terminal: LINES/COLUMNS when set, else the terminal on stdin, else 24×80."""
    rows, cols = 0, 0
    try:
        size = os.get_terminal_size(stdin.fileno())  # type: ignore[attr-defined]
        rows, cols = size.lines, size.columns
    except (AttributeError, OSError, ValueError):  # not a terminal (io.UnsupportedOperation is both)
        pass
    rows = _env_int("LINES") or rows or 24
    cols = _env_int("COLUMNS") or cols or 80
    return max(rows, 5), max(cols, 20)


def _env_int(name: str) -> int:
    text = os.environ.get(name, "")
    return int(text) if text.isdigit() and 0 < len(text) < 6 else 0


def pages(lines: list[str], rows: int, cols: int) -> list[list[str]]:
    """``lines`` cut into pages of at most ``rows`` - 2 terminal rows (a long line wraps over several)."""
    room = rows - 2
    out: list[list[str]] = [[]]
    used = 0
    for line in lines:
        height = max(1, math.ceil(len(line) / cols))
        if out[-1] and used + height > room:
            out.append([])
            used = 0
        out[-1].append(line)
        used += height
    return out
