"""Running the user's hooks around a tool call: a program, the call as JSON on stdin, a timeout.

A ``before`` hook that exits 2 vetoes the call, and its stderr is the
reason the model reads; one that cannot start, exits otherwise non-zero or
runs past its timeout stops the call too (a safety hook that broke must not
wave calls through), with a clear error. An ``after`` hook is for logging or
formatting: what it prints on stdout, when it exits 0, replaces what the
model reads; if it fails, the result stands and the failure is recorded.
Each hook runs in its own process group, killed whole at the timeout, so a
hook that forks and hangs cannot hang the agent. It inherits the kernel's
environment less the variables whose names say they hold secrets and
Agentdesk's own (``AGENTDESK_HOME``).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ..redaction.held import is_secret_variable
from .hook_config import Hook

OUTPUT_MAX_BYTES = 256 * 1024  # what a hook may print, per stream
VETO_EXIT = 2


@dataclass(frozen=True)
class HookOutcome:
    hook: Hook
    outcome: str                 # ok · veto · failed · timeout
    exit_code: int | None
    message: str                 # stderr, or why it failed
    stdout: str
    duration_ms: float

    @property
    def stops(self) -> bool:
        """A before hook that did not end well stops the call."""
        return self.outcome != "ok"

    def reason(self) -> str:
        """Why the call did not run, as the model reads it."""
        said = f": {self.message}" if self.message else ""
        match self.outcome:
            case "veto":
                return f"vetoed by the hook {self.hook.name!r}{said}"
            case "timeout":
                return f"the hook {self.hook.name!r} did not finish within {self.hook.timeout_s:g} s; the call did not run"
            case _:
                return f"the hook {self.hook.name!r} failed{said}; the call did not run"


def hook_env(source: Mapping[str, str] | None = None) -> dict[str, str]:
    """The kernel's environment without what names itself a secret (``ANTHROPIC_API_KEY``, ``*_TOKEN``,
    …) or leads to the kernel (``AGENTDESK_HOME``, and so its socket and ledger): a hook needs the call,
    not the provider keys the kernel holds. (The kernel refuses its children on its socket anyway:
    ``kernel.service.peers``.)"""
    source = os.environ if source is None else source
    return {name: value for name, value in source.items()
            if not is_secret_variable(name) and not name.upper().startswith("AGENTDESK_")}


async def run_hook(hook: Hook, payload: Mapping[str, Any]) -> HookOutcome:
    """Run ``hook`` with ``payload`` on stdin; never raises for anything the hook does."""
    started = time.perf_counter()
    argv = [str(Path(hook.command[0]).expanduser()), *hook.command[1:]]
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, start_new_session=True, env=hook_env())
    except OSError as exc:
        return HookOutcome(hook, "failed", None, f"cannot start {argv[0]} ({exc.strerror or exc})", "",
                           _ms(started))
    data = json.dumps(payload, ensure_ascii=True, default=str).encode()
    try:
        async with asyncio.timeout(hook.timeout_s):
            out, err = await _talk(proc, data)
    except (TimeoutError, asyncio.TimeoutError):
        _kill_group(proc)
        await proc.wait()
        return HookOutcome(hook, "timeout", None, "", "", _ms(started))
    except asyncio.CancelledError:
        _kill_group(proc)
        raise
    code = proc.returncode
    stderr = err.decode("utf-8", "replace").strip()
    stdout = out.decode("utf-8", "replace")
    if code == 0:
        return HookOutcome(hook, "ok", 0, stderr, stdout, _ms(started))
    if code == VETO_EXIT and hook.when == "before":
        return HookOutcome(hook, "veto", code, stderr or "no reason given", stdout, _ms(started))
    detail = f"exited with status {code}" + (f": {stderr}" if stderr else "")
    return HookOutcome(hook, "failed", code, detail, stdout, _ms(started))


async def _talk(proc: asyncio.subprocess.Process, data: bytes) -> tuple[bytes, bytes]:
    """Write stdin (a hook that does not read it is fine), read both streams up to the cap, wait."""
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        proc.stdin.write(data)
        await proc.stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        proc.stdin.close()
    out, err = await asyncio.gather(_read_capped(proc.stdout), _read_capped(proc.stderr))
    await proc.wait()
    return out, err


async def _read_capped(stream: asyncio.StreamReader) -> bytes:
    """Everything until EOF, keeping the first ``OUTPUT_MAX_BYTES`` (the rest is drained, so the hook never blocks)."""
    kept = bytearray()
    while chunk := await stream.read(65536):
        if len(kept) < OUTPUT_MAX_BYTES:
            kept += chunk[:OUTPUT_MAX_BYTES - len(kept)]
    return bytes(kept)


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
