"""The time one MCP tool call costs through the hub, with and without listing the tools again after it.

Run from the repository root: ``python benchmarks/mcp_call_bench.py``. Starts the tests' stdio server
(tests/extensions/mcp_test_server.py, the 2026-07-28 revision, which offers a ``subscriptions/listen``
stream of tool changes) under a real ``McpHub`` and calls ``echo`` CALLS times:
- "before": the listing is marked stale before every call, as the hub did until issue 29 (it listed
  again after every call: one more round trip, and the listing parsed and compared);
- "after": the listing is refreshed only when the server says its tools changed.
Prints the median and mean time per call for each.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CALLS = 200


async def measure(stale: bool) -> list[float]:
    from kernel.core.clock import ManualClock
    from kernel.extensions.mcp_config import McpServerConfig
    from kernel.extensions.mcp_hub import McpHub
    from kernel.leases.book import LeaseBook
    from kernel.tools.registry import ToolRegistry
    from ledger import Ledger
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger(Path(tmp) / "l.db", clock=ManualClock().now)
        hub = McpHub(ToolRegistry(), LeaseBook(ledger, ManualClock(), lambda _e: None))
        server = str(ROOT / "tests/extensions/mcp_test_server.py")
        hub.add_server(McpServerConfig("t", command=sys.executable, args=(server,)))
        assert not await hub.start()
        connection = hub._servers["t"].connection
        times: list[float] = []
        for _ in range(CALLS):
            if stale:
                connection.tools_changed = True
            start = time.perf_counter()
            await hub._call("t", "echo", {"text": "hi"})
            times.append(time.perf_counter() - start)
        await hub.aclose()
        ledger.close()
        return times


def main() -> None:
    for label, stale in (("before (listed again after every call)", True), ("after (listed on change only)", False)):
        times = asyncio.run(measure(stale))
        print(f"{label}: median {statistics.median(times) * 1000:.2f} ms, mean {statistics.mean(times) * 1000:.2f} ms "
              f"per call ({CALLS} calls)")


if __name__ == "__main__":
    main()
