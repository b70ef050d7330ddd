"""What the kernel's check of who connected (``kernel.service.peers.judge``) adds to each accepted connection.

Reports medians over ``--runs`` checks, on real processes:

- ``outside_us``: a peer that is not below the kernel (this script, judged against its own child as the
  "kernel"): the walk goes all the way up to pid 1, the longest walk a served client costs;
- ``child_us``: a peer that is the kernel's child (refused after one step);
- ``depth``: how many parents the outside walk read.

The check runs on the event loop once per connection (``agentdesk ask`` opens two), so it should stay far
below the ~100 µs of one call's round trip (docs/LIBRARIES.md).

Run: ``python benchmarks/peer_bench.py [--json] [--runs N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernel.service.peers import judge, parent_of  # noqa: E402


def _us(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1e6, 1)


def _depth(pid: int) -> int:
    depth = 0
    while pid > 1:
        parent = parent_of(pid)
        if parent is None:
            break
        pid, depth = parent, depth + 1
    return depth


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        outside, inside = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            assert judge(os.getpid(), kernel_pid=child.pid) is None
            outside.append(time.perf_counter() - start)
            start = time.perf_counter()
            assert judge(child.pid, kernel_pid=os.getpid()) is not None
            inside.append(time.perf_counter() - start)
        figures = {"outside_us": _us(outside), "child_us": _us(inside), "depth": _depth(os.getpid()),
                   "runs": args.runs}
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait()
    if args.json:
        print(json.dumps(figures))
    else:
        for name, value in figures.items():
            print(f"{name}: {value}")


if __name__ == "__main__":
    main()
