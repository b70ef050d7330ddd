"""Fixtures for the shell, snapshot and watcher tests: a real ledger, workspace and index.

The shell tests run twice: on an overlay (where this machine has one; the run
fails, not skips, when it does not) and on snapshots, the fallback.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import pytest

from kernel.core.clock import ManualClock
from kernel.config.settings import Settings
from kernel.workspace.snapshot import SnapshotIndex
from kernel.tools.descriptor import ToolContext, ToolDescriptor, ToolOutput
from kernel.sandbox.overlay import OverlayProbe
from kernel.tools.shell import shell_tool
from kernel.workspace.root import Workspace
from ledger import Ledger, ToolCall


@dataclass
class Env:
    ledger: Ledger
    workspace: Workspace
    index: SnapshotIndex
    clock: ManualClock
    settings: Settings
    capture: str = "snapshots"  # how shell commands are captured: "overlay" or "snapshots"
    sync: Path | None = None    # a folder outside the workspace that commands see (read-only): FIFOs live here

    def fifo(self, name: str) -> Path:
        """A FIFO a command can write to and the test read from. Outside the workspace: on an overlay a
        FIFO in the workspace is the overlay's own, a different pipe from the one the test would open."""
        assert self.sync is not None
        path = self.sync / name
        os.mkfifo(path)
        return path

    @property
    def root(self) -> Path:
        return self.workspace.root

    def tool(self, **kwargs: Any) -> ToolDescriptor:
        settings = kwargs.pop("settings", self.settings)
        kwargs.setdefault("overlay", _PROBES[self.capture])
        return shell_tool(settings, self.index, **kwargs)

    @property
    def tool_probe(self) -> OverlayProbe:
        """The overlay probe of this capture path (one that never allows an overlay on snapshots)."""
        return _PROBES[self.capture]

    @property
    def overlay(self) -> bool:
        return self.capture == "overlay"

    def call(self, tool_input: Mapping[str, Any], agent: str = "a1") -> ToolContext:
        """Append the ToolCall entry the executor would, and a context caused by it."""
        entry = self.ledger.append(ToolCall(actor=agent, tool="shell_exec", scope="shell.exec", input=dict(tool_input)))
        return ToolContext(agent_id=agent, workspace=self.workspace, ledger=self.ledger, cause=entry.seq,
                           clock=self.clock)

    async def run(self, tool_input: Mapping[str, Any], tool: ToolDescriptor | None = None,
                  agent: str = "a1") -> tuple[ToolOutput, ToolContext]:
        ctx = self.call(tool_input, agent)
        return await (tool or self.tool()).run(ctx, tool_input), ctx

    def files(self) -> dict[str, bytes]:
        """Every file under the root, relative path -> bytes."""
        out = {}
        for folder, _dirs, names in os.walk(self.root):
            for name in names:
                path = Path(folder) / name
                out[path.relative_to(self.root).as_posix()] = path.read_bytes()
        return out


_PROBES = {"overlay": OverlayProbe(), "snapshots": OverlayProbe(allowed=False)}
_BOTH_PATHS = ("test_shell_exec", "test_sandbox_view", "test_overlay", "test_ignore_authority")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Shell command tests run on both capture paths; those marked ``overlay_only`` (what only an overlay can
    do) on the overlay alone, rather than being generated for snapshots to be skipped there."""
    if "env" in metafunc.fixturenames and metafunc.module.__name__.rsplit(".", 1)[-1] in _BOTH_PATHS:
        only = metafunc.definition.get_closest_marker("overlay_only") is not None
        metafunc.parametrize("capture", ["overlay"] if only else ["overlay", "snapshots"])


@pytest.fixture
def capture() -> str:
    return "snapshots"


@pytest.fixture
def env(tmp_path: Path, capture: str) -> Env:
    root = tmp_path / "ws"
    root.mkdir()
    ledger = Ledger(tmp_path / "l.db")
    index = SnapshotIndex(root, ledger, max_blob=Settings().blob_max_bytes)
    if capture == "overlay":
        status = _PROBES["overlay"].status(root)
        assert status.overlay, f"no overlay on this machine: {status.reason}"
    sync = tmp_path / "sync"
    sync.mkdir()
    yield Env(ledger, Workspace.at(root), index, ManualClock(), Settings(sandbox_read_only=(str(sync),)), capture,
              sync)
    index.close()
    ledger.close()


async def wait_fifo(path: Path, timeout: float = 30.0) -> str:
    """Wait (bounded, no sleeping) until a command writes a line into the FIFO at ``path``."""
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()
    loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
    try:
        await asyncio.wait_for(ready, timeout)
        return os.read(fd, 4096).decode()
    finally:
        loop.remove_reader(fd)
        os.close(fd)


def processes() -> dict[int, tuple[str, int, int, str]]:
    """pid -> (state, ppid, pgid, cmdline) for every live process, read from /proc."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                stat = fh.read()
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                cmdline = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        out[int(name)] = (fields[0], int(fields[1]), int(fields[2]), cmdline)
    return out


def tree_of(marker: str) -> set[int]:
    """Live processes whose command line holds ``marker``, and their ancestors below this process."""
    procs = processes()
    me = os.getpid()
    found = set()
    for pid, (_state, _ppid, _pgid, cmdline) in procs.items():
        if marker in cmdline:
            while pid in procs and pid not in (me, 1, 0):
                found.add(pid)
                pid = procs[pid][1]
    return found


def alive(pids: set[int]) -> set[int]:
    procs = processes()
    return {p for p in pids if p in procs and procs[p][0] != "Z"}


def group_members(pgids: set[int]) -> set[int]:
    return {pid for pid, (state, _ppid, pgid, _c) in processes().items() if pgid in pgids and state != "Z"}
