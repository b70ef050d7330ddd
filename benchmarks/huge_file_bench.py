"""Peak memory of the file tools on huge and large files.

Each scenario runs in a fresh child process: it sets up a ledger and a
workspace holding the file, resets the peak RSS (``/proc/self/clear_refs``),
runs the real tool through a ``ToolContext`` as the executor does, and
reports the peak RSS above what it held just before (``VmHWM`` minus
``VmRSS``), the time, and what the tool said. The files are text made of
random hex lines (so zlib finds realistic, partial redundancy) written in
1 MiB blocks that differ from one another.

Scenarios: fs_edit and fs_delete on a 2 GiB file (over every limit), and
fs_delete, fs_move and fs_write (overwrite) on a 48 MiB file and fs_edit on
a 15 MiB file (under the limits, so their old contents are kept for undo).

Run: ``python benchmarks/huge_file_bench.py [--code DIR] [--huge-mib N] [--json]``; ``--code``
points at another checkout (the code before, e.g. ``git archive`` of main) to compare.
Goal: at most 100 MB above the resting process for the 2 GiB file.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
GOAL_MB = 100.0
MIB = 1024 * 1024

CHILD = r"""
import asyncio, json, os, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from kernel.core.clock import SystemClock
from kernel.core.errors import ToolFailure
from kernel.tools.descriptor import ToolContext
from kernel.tools.fs import FS_DELETE, FS_EDIT, FS_MOVE, FS_WRITE
from kernel.workspace.root import Workspace
from ledger import Ledger, ToolCall

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024

tool_name, args, ws, db = sys.argv[2], json.loads(sys.argv[3]), sys.argv[4], sys.argv[5]
tool = {"fs_edit": FS_EDIT, "fs_delete": FS_DELETE, "fs_move": FS_MOVE, "fs_write": FS_WRITE}[tool_name]
ledger = Ledger(db)
call = ledger.append(ToolCall(actor="bench", tool=tool.name, scope=tool.scope, input=args))
ctx = ToolContext("bench", Workspace.at(ws), ledger, call.seq, SystemClock())
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")  # reset the peak RSS to the current RSS
rest = status("VmRSS")
start = time.perf_counter()
try:
    said = asyncio.run(tool.run(ctx, args)).content
except ToolFailure as exc:
    said = "refused: " + exc.message
seconds = time.perf_counter() - start
print(json.dumps({"extra_mb": (status("VmHWM") - rest) / 1e6, "seconds": seconds, "said": said[:110]}))
"""


def make_text(path: Path, size: int, needle: bool = True) -> None:
    """``size`` bytes of random hex lines, each MiB different, with one 'needle' line near the end."""
    block = b"".join(os.urandom(24).hex().encode() + b"\n" for _ in range(MIB // 49))
    block = block[:MIB - 16]
    with open(path, "wb") as fh:
        written = 0
        for i in range(size // MIB):
            piece = b"%015d\n" % i + block
            fh.write(piece)
            written += len(piece)
        tail = b"needle\n" if needle else b""
        fh.write(tail + b"x" * max(0, size - written - len(tail)))


def run(code: Path, tool: str, args: dict, ws: Path, db: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(code), tool, json.dumps(args), str(ws), str(db)],
                          capture_output=True, text=True, env={**os.environ, "AGENTDESK_HOME": str(db.parent)})
    if done.returncode != 0:
        return {"extra_mb": None, "seconds": None, "said": "crashed: " + done.stderr.strip()[-200:]}
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, default=HERE, help="the checkout to measure (default: this one)")
    parser.add_argument("--huge-mib", type=int, default=2048)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="huge_file_bench") as tmp:
        root = Path(tmp)
        home, ws = root / "home", root / "ws"
        home.mkdir()
        ws.mkdir()
        db = home / "ledger.db"
        huge = f"{opts.huge_mib} MiB"
        make_text(ws / "huge.txt", opts.huge_mib * MIB)
        scenarios = [
            (f"fs_edit {huge}", "fs_edit", {"path": "huge.txt", "old": "needle", "new": "pin"}, None),
            (f"fs_delete {huge}", "fs_delete", {"path": "huge.txt"}, None),
            ("fs_edit 15 MiB", "fs_edit", {"path": "mid.txt", "old": "needle", "new": "pin"}, ("mid.txt", 15)),
            ("fs_write over 48 MiB", "fs_write", {"path": "large.txt", "content": "short\n"}, ("large.txt", 48)),
            ("fs_delete 48 MiB", "fs_delete", {"path": "large2.txt"}, ("large2.txt", 48)),
            ("fs_move 48 MiB", "fs_move", {"src": "large3.txt", "dst": "moved/large3.txt"}, ("large3.txt", 48)),
        ]
        for label, tool, args, make in scenarios:
            if make is not None:
                make_text(ws / make[0], make[1] * MIB)
            result = {"scenario": label, **run(opts.code.resolve(), tool, args, ws, db)}
            results.append(result)
            if not opts.json:
                extra = "crashed" if result["extra_mb"] is None else f"{result['extra_mb']:8.1f} MB"
                secs = "" if result["seconds"] is None else f"{result['seconds']:6.2f} s"
                print(f"{label:22} peak extra {extra}  {secs}  {result['said']}", flush=True)
    if opts.json:
        print(json.dumps({"code": str(opts.code), "goal_mb": GOAL_MB, "results": results}))


if __name__ == "__main__":
    main()
