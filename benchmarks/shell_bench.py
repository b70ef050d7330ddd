"""What shell_exec adds around a command, on an overlay and on snapshots, side by side.

For each workspace size (``--sizes``, default 10,000 and 100,000 small files) and each capture path
(``overlay`` where this machine has one, ``snapshots`` the fallback), reports medians over ``--runs``:

- ``bare_ms``: bash in bubblewrap with the same view and limits, run directly (the floor);
- ``first_ms``: the first shell_exec in a fresh workspace (fresh index, empty ledger): on snapshots this
  reads and stores every file; on an overlay nothing is read (the overlay probe, once per filesystem
  and process, is reported apart as ``probe_ms``);
- ``one_file_ms`` and ``extra_ms``: a whole shell_exec of a one-file command, and what it adds over
  ``bare_ms`` (goal: at most 15 ms, flat in the workspace's size);
- ``per_changed_file_ms``: a command rewriting 1,000 files: what shell_exec adds beyond the one-file
  case, per further changed file;
- ``extra_cpu_ms``: the same extra counted in CPU time (this process and its children): on a machine
  shared with other work, wall times swing by tens of ms while CPU time stays put, and on a quiet
  machine the wall-time extra is about this.

Run: ``python benchmarks/shell_bench.py [--json] [--sizes 10000,100000] [--runs N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernel.core.clock import SystemClock  # noqa: E402
from kernel.sandbox.bwrap import Sandbox, host_paths, scrubbed_env  # noqa: E402
from kernel.sandbox.limits import SandboxLimits, pids_cgroup  # noqa: E402
from kernel.sandbox.overlay import OverlayProbe  # noqa: E402
from kernel.sandbox.view import plan  # noqa: E402
from kernel.config.settings import Settings, home as agentdesk_home  # noqa: E402
from kernel.tools.descriptor import ToolContext, ToolDescriptor  # noqa: E402
from kernel.tools.shell import ShellTool  # noqa: E402
from kernel.workspace.root import Workspace  # noqa: E402
from kernel.workspace.snapshot import SnapshotIndex  # noqa: E402
from ledger import Ledger, ToolCall  # noqa: E402

GOAL_EXTRA_MS = 15.0
ONE_FILE = "echo $RANDOM > pkg00/m0000.py"
THOUSAND = "for i in $(seq 0 999); do echo $RANDOM > pkg01/m$(printf %04d $i).py; done"


def build(root: Path, files: int) -> None:
    """``files`` small Python files, 1,000 to a folder (``pkg01`` holds at least 1,000)."""
    per = 1000
    for n in range(files):
        folder = root / f"pkg{n // per:02d}"
        if n % per == 0:
            folder.mkdir()
        fd = os.open(folder / f"m{n % per:04d}.py", os.O_WRONLY | os.O_CREAT, 0o644)
        os.write(fd, b"x = %d\n" % n)
        os.close(fd)


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


class Bare:
    """bash in bwrap with shell_exec's own view and limits, without the tool around it (the floor)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cpu = 0.0
        self.sandbox = Sandbox()
        self.check = self.sandbox.check()
        self.view = plan(root, host_paths(os.environ, (agentdesk_home(os.environ),), ()))
        self.limits = SandboxLimits()
        support = self.check.support
        self.base = support.cgroup_base if support.processes == "cgroup" else None

    def once(self, command: str) -> float:
        with pids_cgroup(self.base, self.limits.max_processes) if self.base is not None else nullcontext() as procs:
            argv = self.sandbox.argv(self.view, command, network=False, limits=self.limits,
                                     support=self.check.support, cgroup_procs=procs)
            used, started = _cpu(), time.perf_counter()
            subprocess.run(argv, cwd=self.root, env=scrubbed_env(), check=True, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL)
            took = time.perf_counter() - started
            self.cpu = _cpu() - used
            return took


class Runner:
    """shell_exec as the kernel runs it: one tool and one event loop for every command."""

    def __init__(self, root: Path, ledger: Ledger, overlay: bool, probe: OverlayProbe) -> None:
        self.root, self.ledger = root, ledger
        self.cpu = 0.0
        self.index = SnapshotIndex(root, ledger, max_blob=Settings().blob_max_bytes)
        self.shell = ShellTool(Settings(), self.index, overlay=probe if overlay else OverlayProbe(allowed=False))
        self.tool: ToolDescriptor = self.shell.descriptor()
        self.loop = asyncio.new_event_loop()

    def once(self, command: str) -> tuple[float, Any]:
        entry = self.ledger.append(ToolCall(actor="bench", tool="shell_exec", scope="shell.exec",
                                            input={"command": command}))
        ctx = ToolContext(agent_id="bench", workspace=Workspace.at(self.root), ledger=self.ledger,
                          cause=entry.seq, clock=SystemClock())
        used, started = _cpu(), time.perf_counter()
        out = self.loop.run_until_complete(self.tool.run(ctx, {"command": command}))
        took = time.perf_counter() - started
        self.cpu = _cpu() - used
        return took, out

    def close(self) -> None:
        self.shell.close()
        self.loop.close()
        self.index.close()

    def median(self, command: str, runs: int) -> float:
        return _ms([self.once(command)[0] for _ in range(runs)])


def measure(size: int, runs: int, probe: OverlayProbe, overlay_ok: bool) -> dict[str, Any]:
    """Bare and tool runs alternate, so a load that drifts while the benchmark runs hits both alike."""
    out: dict[str, Any] = {"files": size}
    with tempfile.TemporaryDirectory(prefix="agentdesk-shell-bench-") as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        build(root, size)
        os.sync()  # the fixture's writes reach the disk now, not during the measured commands
        bare = Bare(root)
        for name, overlay in (("overlay", True), ("snapshots", False)):
            if overlay and not overlay_ok:
                out[name] = None
                continue
            with Ledger(Path(tmp) / f"{name}.db") as ledger:
                runner = Runner(root, ledger, overlay, probe)
                first, result = runner.once(ONE_FILE)
                floor, one, floor_k, thousand, floor_cpu, one_cpu = [], [], [], [], [], []
                for _ in range(runs):
                    floor.append(bare.once(ONE_FILE))
                    floor_cpu.append(bare.cpu)
                    one.append(runner.once(ONE_FILE)[0])
                    one_cpu.append(runner.cpu)
                changed = 0
                for _ in range(max(3, runs // 3)):
                    floor_k.append(bare.once(THOUSAND))
                    took, res = runner.once(THOUSAND)
                    thousand.append(took)
                    changed = len(res.data["changed"])
                runner.close()
            extra = _ms(one) - _ms(floor)
            extra_k = _ms(thousand) - _ms(floor_k)
            out[name] = {"bare_ms": _ms(floor), "first_ms": round(first * 1000, 1), "one_file_ms": _ms(one),
                         "extra_ms": round(extra, 1), "extra_cpu_ms": round(_ms(one_cpu) - _ms(floor_cpu), 1),
                         "capture": result.data["capture"], "changed_files": changed,
                         "per_changed_file_ms": round((extra_k - extra) / max(1, changed - 1), 3)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    probe = OverlayProbe()
    with tempfile.TemporaryDirectory(prefix="agentdesk-shell-bench-") as tmp:
        (Path(tmp) / "ws").mkdir()
        started = time.perf_counter()
        status = probe.status(Path(tmp) / "ws")
        probe_ms = round((time.perf_counter() - started) * 1000, 1)
    results = [measure(int(n), args.runs, probe, status.overlay) for n in args.sizes.split(",")]
    report = {"overlay_method": status.method, "overlay_reason": status.reason, "probe_ms": probe_ms,
              "goal_extra_ms": GOAL_EXTRA_MS, "results": results}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"capture: {status.describe()}  (probe {probe_ms} ms, once per filesystem)")
    print(f"{'files':>8} {'path':>10} {'bare':>8} {'first':>9} {'one-file':>9} {'extra':>7} {'extra CPU':>9} "
          f"{'per changed file (1,000)':>25}")
    for r in results:
        for name in ("overlay", "snapshots"):
            row = r[name]
            if row is None:
                print(f"{r['files']:>8} {name:>10}  (not available here)")
                continue
            print(f"{r['files']:>8} {name:>10} {row['bare_ms']:>6.1f}ms {row['first_ms']:>7.1f}ms "
                  f"{row['one_file_ms']:>7.1f}ms {row['extra_ms']:>5.1f}ms {row['extra_cpu_ms']:>7.1f}ms "
                  f"{row['per_changed_file_ms']:>23.3f}ms")
    print(f"goal: extra <= {GOAL_EXTRA_MS:g} ms at every size")


if __name__ == "__main__":
    main()
