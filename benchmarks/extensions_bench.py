"""Extension figures: what MCP servers, skills and AGENTS.md cost, measured through the real code.

Run from the repository root: ``python benchmarks/extensions_bench.py``. Prints
- whether importing the kernel facade loads the ``mcp`` SDK (it must not) and what it adds when it does;
- starting our test stdio server (tests/extensions/mcp_test_server.py) and listing its tools;
- the median time of one MCP tool call through the hub, including the listing after it that
  detects a changed tool list (the price of revoking leases promptly), and of a bare call;
- the median time to find, check and hash 20 skills, and to read an AGENTS.md, as the prompt
  builder does before every request.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CALLS = 30


def _fresh(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}).stdout.strip()


def imports() -> None:
    loaded = _fresh("import sys, kernel.facade; print('mcp' in sys.modules)")
    cost = _fresh("import time; t = time.perf_counter(); import mcp; print(f'{(time.perf_counter() - t) * 1000:.0f}')")
    print(f"kernel.facade imports mcp: {loaded}; importing mcp on first connect: {cost} ms")


async def mcp_figures(tmp: Path) -> None:
    from kernel.core.clock import ManualClock
    from kernel.core.events import EventBus
    from kernel.extensions.mcp_config import McpServerConfig
    from kernel.extensions.mcp_hub import McpHub
    from kernel.leases.book import LeaseBook
    from kernel.tools.registry import ToolRegistry
    from ledger import Ledger

    ledger = Ledger(tmp / "ledger.db")
    registry = ToolRegistry()
    hub = McpHub(registry, LeaseBook(ledger, ManualClock(), EventBus().publish), log_dir=tmp)
    server = McpServerConfig("t", command=sys.executable, args=(str(ROOT / "tests/extensions/mcp_test_server.py"),))
    hub.add_server(server)
    started = time.perf_counter()
    await hub.start()
    print(f"start + list of the test server: {(time.perf_counter() - started) * 1000:.0f} ms "
          f"({len(registry)} tools registered)")
    echo = registry.get("mcp__t__echo")
    assert echo is not None
    timings = []
    for i in range(CALLS):
        t = time.perf_counter()
        await echo.run(None, {"text": str(i)})  # type: ignore[arg-type]
        timings.append(time.perf_counter() - t)
    connection = hub._servers["t"].connection
    bare = []
    for i in range(CALLS):
        t = time.perf_counter()
        await connection.call("echo", {"text": str(i)})
        bare.append(time.perf_counter() - t)
    print(f"one call through the hub (with the listing after it): median {statistics.median(timings) * 1000:.1f} ms; "
          f"bare call: median {statistics.median(bare) * 1000:.1f} ms ({CALLS} calls each)")
    await hub.aclose()
    ledger.close()


def skill_figures(tmp: Path) -> None:
    from kernel.extensions.instructions import read_instructions
    from kernel.extensions.skills import find_skills

    for i in range(20):
        folder = tmp / "skills" / f"skill-{i}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: skill-{i}\ndescription: Skill number {i}.\n---\n" + "step\n" * 400)
        (folder / "manifest.json").write_text(json.dumps({"scopes": ["fs.read"]}))
        (folder / "reference.md").write_text("x" * 20_000)
    (tmp / "AGENTS.md").write_text("Rules.\n" * 2000)
    runs = []
    for _ in range(15):
        t = time.perf_counter()
        catalog = find_skills(tmp, tmp)
        runs.append(time.perf_counter() - t)
    assert len(catalog.skills) == 20
    reads = []
    for _ in range(50):
        t = time.perf_counter()
        read_instructions(tmp)
        reads.append(time.perf_counter() - t)
    cache: dict = {}
    cached = []
    for _ in range(15):
        t = time.perf_counter()
        find_skills(tmp, tmp, cache)
        cached.append(time.perf_counter() - t)
    print(f"find + check + hash 20 skills (~26 KB each): median {statistics.median(runs) * 1000:.1f} ms, "
          f"unchanged since the last prompt (metadata cache): median {statistics.median(cached) * 1000:.1f} ms; "
          f"read AGENTS.md (14 KB): median {statistics.median(reads) * 1000:.2f} ms")


def main() -> int:
    imports()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(mcp_figures(Path(tmp)))
    with tempfile.TemporaryDirectory() as tmp:
        skill_figures(Path(tmp))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
