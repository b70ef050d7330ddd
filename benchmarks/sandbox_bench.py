"""What the explicit sandbox view costs per shell command, against the old ``--ro-bind / /``.

Reports, as medians over ``--runs`` runs of ``true`` in a fresh workspace:

- ``old_bwrap_ms``: bubblewrap with the old view (``--ro-bind / /``, private /tmp, the workspace);
- ``plan_ms``: building the new view (``kernel.sandbox.view.plan``: PATH walk, secret checks, git locks);
- ``new_bwrap_ms``: bubblewrap with the new view and limits (system binds, tmpfs home, toolchains,
  masks, size caps, ulimits; a pids cgroup too when running as root);
- ``mounts``: how many mount flags the new command line carries.

Run: ``python benchmarks/sandbox_bench.py [--json] [--runs N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernel.sandbox.bwrap import Sandbox, host_paths, scrubbed_env  # noqa: E402
from kernel.sandbox.limits import SandboxLimits, pids_cgroup  # noqa: E402
from kernel.sandbox.view import plan  # noqa: E402
from kernel.config.settings import home as agentdesk_home  # noqa: E402


def _ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sandbox = Sandbox()
    check = sandbox.check()
    if not check.ok:
        sys.exit(f"bubblewrap cannot run here: {check.reason}")
    env = scrubbed_env()
    limits = SandboxLimits()
    old, planning, new = [], [], []
    mounts = 0
    with tempfile.TemporaryDirectory(prefix="agentdesk-bench-") as root:
        old_argv = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                    "--bind", root, root, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
                    "--new-session", "--cap-drop", "ALL", "--chdir", root, "--unshare-net", "--", "true"]
        for _ in range(args.runs):
            started = time.perf_counter()
            subprocess.run(old_argv, env=env, check=True)
            old.append(time.perf_counter() - started)

            started = time.perf_counter()
            view = plan(Path(root), host_paths(os.environ, [agentdesk_home()], ()))
            planning.append(time.perf_counter() - started)

            started = time.perf_counter()
            cgroup = check.support.cgroup_base if check.support.processes == "cgroup" else None
            if cgroup is not None:
                with pids_cgroup(cgroup, limits.max_processes) as procs:
                    argv = sandbox.argv(view, "true", network=False, limits=limits, support=check.support,
                                        cgroup_procs=procs)
                    subprocess.run(argv, env=env, check=True)
            else:
                argv = sandbox.argv(view, "true", network=False, limits=limits, support=check.support)
                subprocess.run(argv, env=env, check=True)
            new.append(time.perf_counter() - started)
            mounts = sum(1 for a in argv if a in ("--ro-bind", "--bind", "--tmpfs", "--symlink", "--remount-ro"))
    figures = {"old_bwrap_ms": _ms(old), "plan_ms": _ms(planning), "new_bwrap_ms": _ms(new), "mounts": mounts,
               "process_limit": check.support.processes or "none", "tmp_size_cap": check.support.tmp_size,
               "runs": args.runs}
    if args.json:
        print(json.dumps(figures))
    else:
        for name, value in figures.items():
            print(f"{name:>16}: {value}")


if __name__ == "__main__":
    main()
