"""How long workspace snapshots take around a shell command.

Builds a workspace of 10,000 files totalling 200 MB (mostly small text files,
some medium, a few large binaries) in a temporary folder, then reports:

- ``first_snapshot_s``: the first full snapshot (every file read, hashed and
  stored in the ledger's blob store);
- ``noop_snapshot_ms``: a snapshot when nothing changed (stat only);
- ``incremental_ms``: the work shell_exec adds around a command that changes
  one file — the before snapshot, the after snapshot, the diff and the ledger
  records — without bash or bubblewrap start-up (median of several runs);
- ``shell_exec_ms``: a whole shell_exec call doing the same (median).

Run: ``python benchmarks/snapshot_bench.py [--json] [--files N] [--mb M]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernel.core.clock import SystemClock  # noqa: E402
from kernel.config.settings import Settings  # noqa: E402
from kernel.workspace.snapshot import SnapshotIndex  # noqa: E402
from kernel.tools.descriptor import ToolContext  # noqa: E402
from kernel.tools.shell import shell_tool  # noqa: E402
from kernel.workspace.root import Workspace  # noqa: E402
from ledger import Ledger, ToolCall  # noqa: E402

GOAL_INCREMENTAL_MS = 100.0
WORDS = ("alpha beta gamma delta kernel ledger agent lease undo snapshot sandbox window process token "
         "budget provider stream event record workspace file change hash blob").split()


def build_workspace(root: Path, files: int, total_mb: int, seed: int = 7) -> int:
    """10 large binaries, 10% medium files, the rest small text; returns the bytes written."""
    rng = random.Random(seed)
    total = total_mb * 1024 * 1024
    large_n, medium_n = 10, files // 10
    small_n = files - large_n - medium_n
    small_size, medium_size = max(1, total * 18 // 100 // small_n), total * 50 // 100 // medium_n
    large_size = (total - small_size * small_n - medium_size * medium_n) // large_n
    text = " ".join(rng.choice(WORDS) for _ in range(200_000)).encode()
    written = 0
    for i in range(files):
        folder = root / f"pkg{i % 100:02d}" / f"mod{(i // 100) % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        if i < large_n:
            data = rng.randbytes(large_size)
        elif i < large_n + medium_n:
            start = rng.randrange(0, len(text) - 1)
            data = (text[start:] + text)[:medium_size]
        else:
            start = rng.randrange(0, len(text) - small_size)
            data = text[start:start + small_size]
        (folder / f"f{i}.txt").write_bytes(data)
        written += len(data)
    return written


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def run(files: int, total_mb: int, repeats: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="agentdesk-bench-") as tmp:
        base = Path(tmp)
        root = base / "ws"
        root.mkdir()
        written = build_workspace(root, files, total_mb)
        ledger = Ledger(base / "ledger.db")
        index = SnapshotIndex(root, ledger, cache_dir=base / "cache")

        t = time.perf_counter()
        tree, _ = index.scan()
        first_s = time.perf_counter() - t
        noop = []
        for _ in range(3):
            t = time.perf_counter()
            index.scan()
            noop.append(time.perf_counter() - t)

        target = root / "pkg00" / "mod0" / "f2000.txt"  # an existing small file
        incremental, changed = [], 0
        for n in range(repeats):
            call = ledger.append(ToolCall(actor="bench", tool="shell_exec", scope="shell.exec", input={}))
            t = time.perf_counter()
            with index.command():
                before, _ = index.scan()
                mid = time.perf_counter()
                subprocess.run(["bash", "-c", f"echo change {n} >> {target}"], check=True)
                t2 = time.perf_counter()
                result = index.capture(before, actor="bench", cause=call.seq)
            incremental.append((mid - t) + (time.perf_counter() - t2))
            changed = len(result.entries)

        tool = shell_tool(Settings(), index)
        whole = []
        for n in range(repeats):
            call = ledger.append(ToolCall(actor="bench", tool="shell_exec", scope="shell.exec", input={}))
            ctx = ToolContext("bench", Workspace.at(root), ledger, call.seq, SystemClock())
            t = time.perf_counter()
            out = asyncio.run(tool.run(ctx, {"command": f"echo again {n} >> pkg00/mod0/f3000.txt"}))
            whole.append(time.perf_counter() - t)
            assert out.data["changed"] == [{"path": "pkg00/mod0/f3000.txt", "change": "modified"}], out.data
        ledger.close()
        index.close()
        return {
            "files": len(tree), "bytes": written, "first_snapshot_s": round(first_s, 2),
            "noop_snapshot_ms": median_ms(noop), "incremental_ms": median_ms(incremental),
            "incremental_max_ms": round(max(incremental) * 1000, 1), "changed_per_command": changed,
            "shell_exec_ms": median_ms(whole), "goal_incremental_ms": GOAL_INCREMENTAL_MS,
            "incremental_ok": median_ms(incremental) <= GOAL_INCREMENTAL_MS,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    result = run(args.files, args.mb, args.repeats)
    print(f"workspace: {result['files']} files, {int(result['bytes']) / 2**20:.0f} MB")
    print(f"first snapshot:        {result['first_snapshot_s']} s (reads, hashes and stores everything)")
    print(f"no-change snapshot:    {result['noop_snapshot_ms']} ms")
    print(f"snapshot+diff+record:  {result['incremental_ms']} ms median, {result['incremental_max_ms']} ms max "
          f"(goal <= {GOAL_INCREMENTAL_MS:.0f} ms: {'met' if result['incremental_ok'] else 'MISSED'})")
    print(f"whole shell_exec call: {result['shell_exec_ms']} ms median (bash + bubblewrap included)")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
