"""Per-tool-call kernel overhead, with no model and no network.

A provider that answers instantly asks for ``fs_write`` of 2 KB, 1,000 times
in one conversation. For each call we measure from the moment the model's
reply (with the tool call) is complete to the moment the kernel issues the
next request: lease check, the tool/fs.write/result ledger entries, the
atomic write with fsync, events, the next system prompt and request. Prints
median and p95 (goal: median ≤ 0.5 ms); ``--json`` adds one JSON line last.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernel.compose import build_kernel  # noqa: E402
from kernel.providers.base import ProviderRequest, StreamEnd, ToolCallReady, UsageReport  # noqa: E402
from kernel.config.settings import Settings  # noqa: E402
from ledger import Ledger  # noqa: E402

GOAL_MEDIAN_MS = 0.5


class TimedProvider:
    """Answers each request at once with one fs_write call, and notes the times."""

    name = "timed"

    def __init__(self, calls: int) -> None:
        self.calls = calls
        self.served = 0
        self.reply_done: list[float] = []
        self.request_at: list[float] = []
        self.payload = ("x" * 63 + "\n") * 32  # 2 KB

    async def stream(self, request: ProviderRequest):
        self.request_at.append(time.perf_counter())
        self.served += 1
        yield UsageReport(1, 0)
        if self.served <= self.calls:
            path = f"bench/file{self.served % 50}.txt"
            content = f"{self.served:08d}" + self.payload[8:]  # new bytes every time: a real write
            yield ToolCallReady(f"c{self.served}", "fs_write", {"path": path, "content": content})
            yield UsageReport(None, 1)
            yield StreamEnd("tool_use")
        else:
            yield StreamEnd("end_turn")
        self.reply_done.append(time.perf_counter())

    async def aclose(self) -> None:
        return None


async def measure(calls: int, root: Path) -> list[float]:
    ws = root / "ws"
    ws.mkdir()
    provider = TimedProvider(calls)
    with Ledger(root / "ledger.db") as ledger:
        kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws), default_budget=10**9),
                        providers=lambda _n: provider)
        agent = kernel.agents.spawn("bench")
        kernel.leases.grant(agent.id, "fs.write", 8 * 3600)
        kernel.agents.send(agent.id, "write files")
        await kernel.agents.wait(agent.id)
        await kernel.aclose()
    # gap i: reply i complete → request i+1 issued
    return [(provider.request_at[i + 1] - provider.reply_done[i]) * 1000 for i in range(calls)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gaps = asyncio.run(measure(args.calls, Path(tmp)))
    gaps.sort()
    median = statistics.median(gaps)
    p95 = gaps[int(len(gaps) * 0.95) - 1]
    print(f"tool calls: {len(gaps)} (fs_write of 2 KB, lease held, fsync on)")
    print(f"kernel overhead per tool call: median {median:.3f} ms, p95 {p95:.3f} ms, max {gaps[-1]:.3f} ms")
    print(f"goal: median <= {GOAL_MEDIAN_MS} ms -> {'met' if median <= GOAL_MEDIAN_MS else 'NOT met'}")
    if args.json:
        print(json.dumps({"calls": len(gaps), "median_ms": round(median, 4), "p95_ms": round(p95, 4),
                          "max_ms": round(gaps[-1], 4), "goal_median_ms": GOAL_MEDIAN_MS}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
