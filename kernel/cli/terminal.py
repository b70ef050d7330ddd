"""Terminal views for ``agentdesk ask``: streamed text, tool lines, and lease prompts.

The prompt reads stdin in a worker thread so the event loop (and the
request's expiry) keeps running while the person thinks.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import TextIO

from ..leases.approver import Decision, Denial, Grant, LeaseRequest
from ..core.events import Event, TextDelta, ToolCallFinished, ToolCallStarted
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

    def __call__(self, event: Event) -> None:
        match event:
            case TextDelta(agent_id=aid, text=text) if aid == self.agent_id:
                self.stdout.write(shown(text, lines=True) if self._tty else text)  # piped: the reply as sent
                self.stdout.flush()
                self._mid_line = not text.endswith("\n")
            case ToolCallStarted(agent_id=aid) if aid == self.agent_id:
                self._end_text_line()
            case ToolCallFinished(agent_id=aid) if aid == self.agent_id:
                mark = "ok" if event.ok else "error"
                detail = "" if event.ok else f": {shown(event.content, lines=True)}"
                print(f"[tool] {shown(event.tool)} {mark} ({event.duration_ms:.0f} ms){detail}", file=self.stderr, flush=True)

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
        """A one-off confirmation: why it asks every time, what looks wrong, then y allows this call only."""
        print(f"\n{shown(request.agent_name)} ({request.agent_id}) wants to call {shown(request.tool)} "
              f"({shown(request.scope)}) {summarize_input(dict(request.input))}", file=self.stderr)
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
