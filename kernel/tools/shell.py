"""shell_exec: run a command with bash in the workspace, sandboxed, and record what it changed.

The runner runs the command under bubblewrap (``kernel.sandbox.bwrap``) in a session
of its own and records every file the command created, modified or deleted as
the agent's ``fs.write`` entries caused by this call, so undo reverses a
command like any other write. Where an overlay works (``kernel.sandbox.overlay``)
the command writes only to an upper layer, applied through the ledger when it
ends (``kernel.workspace.upper``): a transaction whose cost follows what it
changed. Elsewhere the runner photographs the workspace before and after
(``kernel.workspace.snapshot``). That recording happens however the command
ends: normally, at its timeout, or because the agent was killed; a kill takes
down the whole process tree at once (process group kill of bwrap, whose PID
namespace dies with it: ``kernel.sandbox.supervisor`` starts, times out, kills
and reaps the processes) and the runner then re-raises ``CancelledError``.

Without a working bubblewrap the tool refuses, naming the package, unless
``Settings.allow_unsandboxed_shell`` is set; then it runs plainly (still with
a scrubbed environment, still recorded) and says so in the lease dialog.

A command may read any file in the workspace, so its output (and a timeout's error) is untrusted
while the workspace holds bytes a tainted agent wrote, at the command's start or end
(``kernel.trust.content_taint.workspace_taint``): conservative, and one indexed query when nothing
there is tainted.
"""

from __future__ import annotations

import asyncio
import os
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Mapping, Protocol, Sequence

from ..core.errors import ToolFailure
from ..redaction.cuts import finder_of
from ..sandbox.bwrap import Sandbox, SandboxCheck, host_paths, scrubbed_env
from ..sandbox.limits import SandboxLimits
from ..sandbox.overlay import OverlayProbe, OverlayStatus, Stage, stage_parent, wrap_argv
from ..sandbox.stages import StagePool
from ..sandbox.supervisor import NotLimited, NotStarted, supervise
from ..sandbox.view import Skipped, View
from ..sandbox.view_cache import ViewCache
from ..config.settings import home as agentdesk_home
from ..config.schema import SHELL_TIMEOUT_MAX_S
from ..trust.content_taint import TaintedFiles, workspace_taint
from ..workspace.upper import Applied, apply_upper
from .descriptor import CallPreview, Risk, ToolContext, ToolDescriptor, ToolOutput
from .output import OutputBuffer

if TYPE_CHECKING:
    from ..config.settings import Settings
    from ..workspace.snapshot import CommandChanges, SnapshotIndex
    from ..workspace.root import Workspace

SCOPE = "shell.exec"
NET_SCOPE = "shell.exec.net"
OUTPUT_MAX_BYTES = 32 * 1024

INPUT_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "minLength": 1, "description": "A bash command line."},
        "timeout": {"type": "number", "exclusiveMinimum": 0, "description": "Seconds before it is stopped."},
        "network": {"type": "boolean", "description": "Allow network access (needs its own lease)."},
    },
    "required": ["command"],
    "additionalProperties": False,
}
OUTPUT_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "exit_code": {"type": "integer"},
        "output": {"type": "string"},
        "cut_bytes": {"type": "integer"},
        "changed": {"type": "array", "items": {"type": "object"}},
        "hash_only": {"type": "array", "items": {"type": "string"}},
        "not_undoable": {"type": "array", "items": {"type": "string"}},
        "sandboxed": {"type": "boolean"},
        "not_shown": {"type": "array", "items": {"type": "object"}},
        "network": {"type": "boolean"},
        "snapshot": {"type": "integer"},
        "capture": {"type": "string"},
        "conflicts": {"type": "array", "items": {"type": "object"}},
        "links_split": {"type": "array", "items": {"type": "object"}},
        "not_landed": {"type": "array", "items": {"type": "object"}},
    },
}
DESCRIPTION = (
    "Run a bash command in the workspace folder and return its exit code and output (stdout and stderr, "
    "long output cut in the middle). The command runs in a sandbox: only the workspace is writable, /tmp and "
    "$HOME are private, empty and size-capped, the system and the toolchains on PATH are read-only, there is "
    "no network unless `network` is true, processes and memory are bounded, and background processes end "
    "with it. .git/hooks and .git/config are read-only. Every file it changes is recorded and can be undone. "
    "The command works like a transaction: its changes to the workspace become visible outside it (to other "
    "tools and programs) when it ends, and a command stopped early keeps the changes it made until then."
)


ArgvFor = Callable[[int | None, Path | None], list[str]]  # (bwrap's --info-fd, the cgroup's procs file) -> argv
Runner = Callable[[ArgvFor, bool, Path, int], Awaitable["CommandResult"]]  # (argv, sandboxed, cwd, output cap)


class IndexSource(Protocol):
    def for_root(self, root: "Path") -> "SnapshotIndex": ...


@dataclass(frozen=True)
class CommandResult:
    exit_code: int | None  # None when it was stopped (timeout)
    output: str
    total_bytes: int
    cut_bytes: int
    timed_out: bool


def shell_tool(settings: "Settings | Callable[[], Settings]", index: IndexSource, *, bwrap: str = "bwrap",
               environ: Mapping[str, str] | None = None, output_max_bytes: int = OUTPUT_MAX_BYTES,
               limits: SandboxLimits = SandboxLimits(), overlay: OverlayProbe | None = None,
               stages: StagePool | None = None, on_recorded: Callable[[Path], None] | None = None) -> ToolDescriptor:
    """The shell_exec descriptor (see ``ShellTool``)."""
    return ShellTool(settings, index, bwrap=bwrap, environ=environ, output_max_bytes=output_max_bytes,
                     limits=limits, overlay=overlay, stages=stages, on_recorded=on_recorded).descriptor()


class ShellTool:
    """shell_exec's executor, preview and lease-dialog notes. ``index`` gives the snapshot index of a
    workspace root.

    ``settings`` may be a callable, read at every call, so changed settings (the timeout,
    whether unsandboxed commands are allowed, the read-only folders) apply to the next command.
    ``environ`` is the host environment the command's HOME, PATH and ``$AGENTDESK_HOME`` come from.
    ``overlay`` finds whether a command can run on an overlay (``OverlayProbe(allowed=False)``: never).
    ``stages`` keeps each workspace's stage folder between commands (``close()`` removes them).
    ``on_recorded`` is called with the upper layer after an overlay's changes are recorded and before
    they land (a test's seam).
    """

    def __init__(self, settings: "Settings | Callable[[], Settings]", index: IndexSource, *, bwrap: str = "bwrap",
                 environ: Mapping[str, str] | None = None, output_max_bytes: int = OUTPUT_MAX_BYTES,
                 limits: SandboxLimits = SandboxLimits(), overlay: OverlayProbe | None = None,
                 stages: StagePool | None = None, on_recorded: Callable[[Path], None] | None = None) -> None:
        self._settings: Callable[[], Settings] = (
            settings if callable(settings) else (lambda: settings))
        self._index = index
        self._environ = environ
        self._output_max_bytes = output_max_bytes
        self._limits = limits
        self._sandbox = Sandbox(bwrap)
        self._overlay = overlay if overlay is not None else OverlayProbe(bwrap)
        self._stages = stages if stages is not None else StagePool()
        self._views = ViewCache()
        self._tainted: TaintedFiles | None = None  # where tainted bytes were written, kept between commands
        self._on_recorded = on_recorded
        # One command at a time per workspace: overlapping commands' changes could not be told apart.
        self._locks: dict[tuple[asyncio.AbstractEventLoop, "Path"], asyncio.Lock] = {}

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(
            name="shell_exec", description=DESCRIPTION, input_schema=INPUT_SCHEMA, output_schema=OUTPUT_SCHEMA,
            # The executor's outer limit only: the command's own timeout (Settings, read per call) ends it first.
            tool_class="execute", scope=SCOPE, run=self.run, timeout_s=SHELL_TIMEOUT_MAX_S + 60.0,
            preview=self.preview, scope_of=lambda i: NET_SCOPE if i.get("network") else SCOPE, notes_of=self.notes,
            # what a command does in the workspace is recorded and undoable; with the network it can reach out
            risk=Risk.LOCAL_WRITE, risk_of=self.risk_of, trusted=True,
            # a command without the sandbox can do anything the user can: each one is confirmed on its own
            # (never by a lease or a policy) and refused for unattended runs (kernel/agents/gate.py)
            confirm_of=lambda _i: self.unsandboxed(), detail_of=self.detail)

    def risk_of(self, tool_input: Mapping[str, Any]) -> Risk:
        """With the network, or without the sandbox, a command can act outside the ledger's reach."""
        return Risk.OUTWARD if tool_input.get("network") or self.unsandboxed() else Risk.LOCAL_WRITE

    def detail(self, _agent_id: str, _tool_input: Mapping[str, Any]) -> tuple[str, ...]:
        """The confirmation's words for a command that would run without the sandbox."""
        if not self.unsandboxed():
            return ()
        return ("runs WITHOUT a sandbox: it can read and change everything you can, and use the network",)

    def overlay_status(self, root: "Path") -> OverlayStatus:
        """How commands in ``root`` are captured (probes once per filesystem; blocking)."""
        return self._overlay.status(Path(os.path.realpath(root)))

    def unsandboxed(self) -> bool:
        """Commands run without the sandbox (allowed in Settings, and bubblewrap does not work here); the
        sandbox is probed only when Settings allow that, once (blocking)."""
        return self._settings().allow_unsandboxed_shell and not self._sandbox.check().ok

    async def run(self, ctx: ToolContext, tool_input: Mapping[str, Any]) -> ToolOutput:
        settings = self._settings()
        sandbox, limits = self._sandbox, self._limits
        command = str(tool_input["command"])
        network = bool(tool_input.get("network", False))
        timeout = _timeout(settings, tool_input)
        root = ctx.workspace.root
        host_env = os.environ if self._environ is None else self._environ
        ready = await asyncio.to_thread(self._prepare, root, settings, host_env, ctx.ledger)
        check, view, status, stage = ready.check, ready.view, ready.status, ready.stage
        cgroup = check.support.cgroup_base if check.ok and check.support.processes == "cgroup" else None

        def argv(info_fd: int | None, procs: Path | None) -> list[str]:
            if view is None:
                return sandbox.plain_argv(command)
            line = sandbox.argv(view, command, network=network, limits=limits, support=check.support,
                                info_fd=info_fd, cgroup_procs=procs)
            if stage is None or status is None:
                return line
            return wrap_argv(status.method, line, view.workspace, stage, bwrap=sandbox.bwrap)

        def run(fd_procs: ArgvFor, sandboxed: bool, cwd: Path, cap: int) -> Awaitable[CommandResult]:
            return _run(fd_procs, sandboxed, cwd, env, timeout, ctx, cap, cgroup, limits.max_processes)

        env = scrubbed_env(host_env, sandboxed=check.ok)
        idx = self._index.for_root(root)
        skipped = () if view is None else view.skipped
        release = _once(self._stages.release)
        try:
            async with self._locks.setdefault((asyncio.get_running_loop(), idx.root), asyncio.Lock()):
                files = self._tainted_files(ctx.ledger)
                tainted = await asyncio.to_thread(workspace_taint, ctx.ledger, root, files)  # what it may read
                if stage is not None:
                    report = await _run_on_overlay(idx, stage, ctx, argv, run, network, self._output_max_bytes,
                                                   skipped, release, self._on_recorded)
                else:
                    report = await _run_recorded(idx, ctx, argv, run, check.ok, network, self._output_max_bytes,
                                                 skipped)
                if tainted is None:  # made meanwhile by someone else, or by the command itself
                    tainted = await asyncio.to_thread(workspace_taint, ctx.ledger, root, files)
        finally:
            if stage is not None:
                release(stage)  # a no-op once applied; otherwise (it never ran) a few renames
        source = None if tainted is None else f"shell_exec in a workspace holding {tainted.source}"
        if report.data["timed_out"]:
            kept = "were applied" if report.data["capture"] == "overlay" else "are kept"
            raise ToolFailure(f"the command timed out after {timeout:g}s and was stopped (cut short: the changes it "
                              f"made until then {kept} and recorded).\n{report.content}", source=source)
        return replace(report, source=source)

    def _tainted_files(self, ledger: Any) -> TaintedFiles:
        if self._tainted is None or self._tainted.ledger is not ledger:
            self._tainted = TaintedFiles(ledger)
        return self._tainted

    def _prepare(self, root: Path, settings: "Settings", host_env: Mapping[str, str], ledger: Any) -> "_Prepared":
        """Everything a command needs before it starts, in one trip off the event loop."""
        check = self._sandbox.check()  # probed once
        if not check.ok and not settings.allow_unsandboxed_shell:
            raise ToolFailure(f"shell_exec refused: {check.reason}. Commands only run inside the bubblewrap "
                              "sandbox (or set allow_unsandboxed_shell in the settings to run them without one).")
        if not check.ok:
            return _Prepared(check, None, None, None)
        real = Path(os.path.realpath(root))
        status = self._overlay.status(real)  # probed once per filesystem, then a lookup
        stage = _stage_or_none(self._stages, real) if status.overlay else None
        try:
            secrets = (agentdesk_home(host_env), *_ledger_files(ledger), stage_parent(real))
            view = self._views.plan(root, host_paths(host_env, secrets, settings.sandbox_read_only))
        except BaseException:
            if stage is not None:
                self._stages.release(stage)
            raise
        return _Prepared(check, view, status, stage)

    def close(self) -> None:
        """Remove this tool's stage folders (blocking; no command may be running)."""
        self._stages.close()

    def preview(self, workspace: "Workspace", tool_input: Mapping[str, Any]) -> CallPreview:
        command = str(tool_input.get("command", ""))
        network = bool(tool_input.get("network", False))
        one_line = command if len(command) <= 200 and "\n" not in command else command.splitlines()[0][:200] + " …"
        where = f"in {workspace.root}" + (", with network access" if network else ", no network")
        return CallPreview(summary=f"$ {one_line}  ({where})", path=str(workspace.root),
                           diff=command if one_line != command else None)

    def notes(self, tool_input: Mapping[str, Any]) -> tuple[str, ...]:
        check = self._sandbox.check()  # probes once (blocking): callers run this off the event loop
        out = []
        if self.unsandboxed():
            out.append(f"Runs WITHOUT a sandbox ({check.reason}): the command can change any file "
                       "your user can and use the network. Its changes inside the workspace are still recorded.")
        elif check.ok:
            out += [f"Sandbox limits: {note}" for note in check.support.notes]
        if tool_input.get("network"):
            out.append("The command may use the network.")
        return tuple(out)


async def _run_recorded(idx: "SnapshotIndex", ctx: ToolContext, argv: ArgvFor, run: Runner, sandboxed: bool,
                        network: bool, cap: int, skipped: tuple[Skipped, ...]) -> ToolOutput:
    """Snapshot, run, and record what changed, however the command ends."""
    root = idx.root
    with idx.command():
        before, _ = await idx.snapshot()
        try:
            result = await run(argv, sandboxed, root, cap)
        except asyncio.CancelledError:
            await _capture_shielded(idx, before, ctx)
            raise
        changes = await asyncio.to_thread(idx.capture, before, actor=ctx.agent_id, cause=ctx.cause)
    return _report(ctx.workspace, result, _Captured.of_snapshots(changes), sandboxed=sandboxed, network=network,
                   skipped=skipped)


async def _run_on_overlay(idx: "SnapshotIndex", stage: Stage, ctx: ToolContext,
                          argv: ArgvFor, run: Runner, network: bool, cap: int, skipped: tuple[Skipped, ...],
                          release: Callable[[Stage], None],
                          on_recorded: Callable[[Path], None] | None = None) -> ToolOutput:
    """Run on the overlay, then apply its upper layer through the ledger, however the command ends;
    ``release`` empties the stage for the next command once it is applied (in the same thread).

    The index is not marked busy: nothing the command does reaches the real
    workspace until it ends, so what the watcher sees meanwhile is someone else's.
    """
    # ctimes come from the filesystem's coarse clock, which may lag time_ns() by a tick: read that clock
    # (the stage was made just now, on the workspace's filesystem)
    since, start_ns = ctx.ledger.last_seq(), _fs_now(stage)

    def apply() -> "Applied":
        try:
            idx.rules.refresh()
            return apply_upper(idx.root, stage.upper, ctx.ledger, actor=ctx.agent_id, cause=ctx.cause,
                               ignores=lambda rel, is_dir: idx.ignores(rel, is_dir=is_dir), excluded=idx.excluded,
                               max_blob=idx.max_blob, since_seq=since, start_ns=start_ns, known=known,
                               recorded=on_recorded)
        finally:
            release(stage)

    def known(rel: str) -> str | None:
        state = idx.tree.get(rel)
        return None if state is None else state.digest

    try:
        result = await run(argv, True, idx.root, cap)
    except asyncio.CancelledError:
        job = asyncio.ensure_future(asyncio.to_thread(apply))
        try:
            await asyncio.shield(job)
        except asyncio.CancelledError:
            pass  # cancelled again: the thread still finishes the recording
        raise
    applied = await asyncio.to_thread(apply)
    return _report(ctx.workspace, result, _Captured.of_overlay(applied), sandboxed=True, network=network,
                   skipped=skipped)


def _stage_or_none(stages: StagePool, root: Path) -> Stage | None:
    """An empty stage beside ``root``; None (this command falls back to snapshots) when one cannot be made
    there (the probe ran beside another workspace on the same filesystem)."""
    try:
        return stages.acquire(root)
    except OSError:
        return None


def _once(release: Callable[[Stage], None]) -> Callable[[Stage], None]:
    """``release`` that acts on its first call only (the stage may be another command's by the second)."""
    done = threading.Lock()

    def once(stage: Stage) -> None:
        if done.acquire(blocking=False):
            release(stage)

    return once


@dataclass(frozen=True)
class _Prepared:
    """What ``ShellTool._prepare`` found: the sandbox, the view (None: none), the overlay status and the stage."""

    check: SandboxCheck
    view: View | None
    status: OverlayStatus | None
    stage: Stage | None


def _fs_now(stage: Stage) -> int:
    """The workspace filesystem's clock now, as it stamps ctimes (a file touched in the stage)."""
    probe = stage.folder / "started"
    probe.touch()
    return os.stat(probe).st_ctime_ns


def _ledger_files(ledger: Any) -> tuple[Path, ...]:
    """The ledger's database files: never shown to a command, wherever they are."""
    path = getattr(ledger, "path", None)
    if not path:
        return ()
    return tuple(Path(str(path) + suffix) for suffix in ("", "-wal", "-shm", "-journal"))


def _timeout(settings: "Settings", tool_input: Mapping[str, Any]) -> float:
    asked = tool_input.get("timeout")
    if asked is None:
        return settings.shell_timeout_s
    if not isinstance(asked, (int, float)) or asked <= 0:
        raise ToolFailure("timeout must be a positive number of seconds")
    return min(float(asked), settings.shell_timeout_s)


async def _run(argv_for: ArgvFor, sandboxed: bool, cwd: Path, env: Mapping[str, str], timeout: float,
               ctx: ToolContext, cap: int, cgroup: Path | None, max_processes: int) -> CommandResult:
    """Run the command under ``kernel.sandbox.supervisor`` (in its pids cgroup, its whole tree stopped at
    the timeout or on cancel); its output kept in a buffer that cuts the middle of long output, never
    through a secret."""
    buffer = OutputBuffer(cap, finder_of(ctx.ledger.redactor))  # a secret crossing a cut goes whole
    try:
        ended = await supervise(argv_for, sandboxed=sandboxed, cwd=cwd, env=env, timeout=timeout,
                                sleep=ctx.clock.sleep, output=buffer, cgroup=cgroup, max_processes=max_processes)
    except NotLimited as exc:
        raise ToolFailure(f"could not set up the process limit for the command: {exc}") from exc.__cause__
    except NotStarted as exc:
        raise ToolFailure(f"could not start the command: {exc}") from exc.__cause__
    return CommandResult(ended.exit_code, buffer.text(), buffer.total, buffer.cut, ended.timed_out)


async def _capture_shielded(idx: "SnapshotIndex", before: Any, ctx: ToolContext) -> None:
    """Record what a killed command changed, even though this task is being cancelled."""
    job = asyncio.ensure_future(asyncio.to_thread(idx.capture, before, actor=ctx.agent_id, cause=ctx.cause))
    try:
        await asyncio.shield(job)
    except asyncio.CancelledError:
        pass  # cancelled again: the thread still finishes the recording


@dataclass(frozen=True)
class _Captured:
    """What a command changed, as recorded, however it was captured."""

    changed: tuple[tuple[str, str], ...]        # (relative path, created|modified|deleted|mode|link …)
    hash_only: tuple[str, ...]
    not_undoable: tuple[str, ...]
    snapshot: int
    capture: str                                 # "overlay" or "snapshots"
    ignored: tuple[str, ...] = ()
    conflicts: tuple[tuple[str, str, int], ...] = ()   # (relative path, who else changed it, their entry)
    failed: tuple[tuple[str, str], ...] = ()
    special: tuple[str, ...] = ()
    links_split: tuple[tuple[str, int], ...] = ()  # (relative path, names the file had)
    renamed: tuple[str, ...] = ()  # named with a secret: kept and recorded under these names
    unnamed: int = 0               # named with a secret and could not be moved aside: not recorded

    @classmethod
    def of_snapshots(cls, changes: "CommandChanges") -> "_Captured":
        return cls(tuple((c.rel, c.kind) for c in changes.changes), changes.hash_only, changes.not_undoable,
                   changes.snapshot.seq, "snapshots", renamed=changes.renamed, unnamed=changes.unnamed)

    @classmethod
    def of_overlay(cls, applied: "Applied") -> "_Captured":
        return cls(tuple(applied.changes), tuple(applied.hash_only), tuple(applied.not_undoable),
                   applied.snapshot.seq if applied.snapshot is not None else 0, "overlay", tuple(applied.ignored),
                   tuple((c.rel, c.by, c.seq) for c in applied.conflicts), tuple(applied.failed),
                   tuple(applied.skipped), tuple(applied.links_split), tuple(applied.renamed))


def _report(workspace: "Workspace", outcome: CommandResult, captured: _Captured, *, sandboxed: bool,
            network: bool, skipped: tuple[Skipped, ...] = ()) -> ToolOutput:
    status = "stopped (timeout)" if outcome.timed_out else f"exit code: {outcome.exit_code}"
    lines = [status]
    if outcome.output:
        lines.append(outcome.output.rstrip("\n"))
    if outcome.cut_bytes:
        lines.append(f"[output was {outcome.total_bytes} bytes; {outcome.cut_bytes} bytes in the middle were cut]")
    changed = [{"path": rel, "change": kind} for rel, kind in captured.changed]
    if changed:
        lines.append("files changed: " + _listed([f"{c['change']} {c['path']}" for c in changed]))
    if captured.hash_only:
        lines.append("recorded by hash only (too large to keep): " + _listed(captured.hash_only))
    if captured.not_undoable:
        lines.append("NOT undoable (earlier contents too large to keep): " + _listed(captured.not_undoable))
    if captured.ignored:
        lines.append(f"recorded by hash only ({len(captured.ignored)} matched the ignore rules): "
                     + _listed(captured.ignored, 10))
    for rel, by, seq in captured.conflicts:
        lines.append(f"CONFLICT {rel}: also changed by {by} while the command ran (entry #{seq}); the command's "
                     "version was applied over it, and undo can bring the other back")
    for rel, why in captured.failed:
        lines.append(f"NOT APPLIED {rel}: {why}; the change is in the record but was refused, and the file "
                     "keeps what it held")
    for rel, names in captured.links_split:
        lines.append(f"hard link split: {rel} had {names} names; the command's version replaced this name only, "
                     "the other names keep the earlier contents")
    if captured.renamed:
        lines.append("a file name held a secret (a key or token), which the record never keeps; the file was kept "
                     "and recorded as " + _listed(captured.renamed))
    if captured.unnamed:
        lines.append(f"NOT RECORDED: {captured.unnamed} file(s) whose name holds a secret could not be renamed")
    if captured.special:
        lines.append("not recorded (not a file, folder or link): " + _listed(captured.special))
    if skipped:
        lines.append("not shown to the command: " + "; ".join(f"{s.path} ({s.reason})" for s in skipped))
    data = {"exit_code": outcome.exit_code, "timed_out": outcome.timed_out, "output": outcome.output,
            "output_bytes": outcome.total_bytes, "cut_bytes": outcome.cut_bytes, "changed": changed,
            "hash_only": list(captured.hash_only), "not_undoable": list(captured.not_undoable),
            "sandboxed": sandboxed, "network": network, "snapshot": captured.snapshot, "capture": captured.capture,
            "conflicts": [{"path": rel, "by": by, "entry": seq} for rel, by, seq in captured.conflicts],
            "links_split": [{"path": rel, "names": names} for rel, names in captured.links_split],
            "not_landed": [{"path": rel, "why": why} for rel, why in captured.failed],
            "renamed": list(captured.renamed), "unnamed": captured.unnamed,
            "not_shown": [{"path": s.path, "reason": s.reason} for s in skipped]}
    return ToolOutput("\n".join(lines), data)


def _listed(items: "Sequence[str]", most: int = 200) -> str:
    """A comma-separated list, the rest counted (a command may change 100,000 files)."""
    shown = ", ".join(items[:most])
    return shown if len(items) <= most else f"{shown} … and {len(items) - most} more"
