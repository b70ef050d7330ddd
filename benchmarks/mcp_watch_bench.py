"""What noticing a hand edit of mcp.json costs (kernel/extensions/mcp_watch.py), and why not inotify.

Run from the repository root: ``python benchmarks/mcp_watch_bench.py``. Prints
- the median time of one check (a stat of mcp.json compared with the version last read), which the
  kernel service makes every 2 s: the whole watch costs that much every 2 s, whatever the kernel does;
- for comparison, an inotify watch (watchdog, already a dependency) on the home folder, which is
  where mcp.json lives: how many events it delivers, and the observer thread's CPU time, while the
  kernel appends 1,000 entries to the ledger in that same folder (ledger.db and its WAL);
- the edit-to-reload delay of the stat watch: at most one interval (2 s), half of it on average.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CHECKS = 20_000
APPENDS = 1_000


def stat_check(home: Path) -> None:
    from kernel.extensions.mcp_watch import MCP_WATCH_S, McpFile

    (home / "mcp.json").write_text('{"servers": {}}')
    file = McpFile(home / "mcp.json")
    file.mark()
    times = []
    for _ in range(CHECKS):
        t = time.perf_counter_ns()
        file.changed()
        times.append(time.perf_counter_ns() - t)
    median_us = statistics.median(times) / 1000
    print(f"one check (stat + compare): median {median_us:.1f} µs, p99 {sorted(times)[int(CHECKS * .99)] / 1000:.1f} µs;"
          f" every {MCP_WATCH_S:g} s that is {median_us / MCP_WATCH_S / 1e4:.5f} % of one core")


def inotify_on_home(home: Path) -> None:
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    from ledger import KERNEL, Ledger, ToolCall

    seen = {"events": 0, "mcp": 0}
    thread_cpu: dict[str, float] = {}

    class Count(FileSystemEventHandler):
        def on_any_event(self, event) -> None:  # type: ignore[no-untyped-def]
            seen["events"] += 1
            seen["mcp"] += str(event.src_path).endswith("mcp.json")
            thread_cpu["s"] = time.thread_time()

    ledger = Ledger(home / "ledger.db")
    observer = Observer()
    observer.schedule(Count(), str(home), recursive=False)
    observer.start()
    try:
        for i in range(APPENDS):
            ledger.append(ToolCall(actor=KERNEL, tool="fs_read", scope="fs.read", input={"path": f"f{i}"}))
        done = threading.Event()
        (home / "mcp.json").write_text('{"servers": {}}')  # the one event a watch wants
        deadline = time.monotonic() + 10
        while seen["mcp"] == 0 and time.monotonic() < deadline:  # the observer thread catching up (a benchmark)
            done.wait(0.01)
    finally:
        observer.stop()
        observer.join()
        ledger.close()
    print(f"inotify on the home folder: {seen['events']} events for {APPENDS} ledger appends "
          f"({seen['events'] / APPENDS:.1f} per append), observer thread CPU {thread_cpu.get('s', 0) * 1000:.0f} ms;"
          f" events naming mcp.json: {seen['mcp']}")


def main() -> None:
    print(f"pid {os.getpid()}, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        stat_check(Path(tmp))
    with tempfile.TemporaryDirectory() as tmp:
        inotify_on_home(Path(tmp))


if __name__ == "__main__":
    main()
