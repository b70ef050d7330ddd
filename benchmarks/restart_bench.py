"""Kernel start on a long record: 100 agents × 200 conversation messages → serving.

Writes a ledger as a real run would leave it (spawn; then per agent 100
user turns and 100 replies, every fourth reply calling a tool whose call and
result are on the record too; some leases), then times a new ``Kernel`` with
``restore=True`` (the check at start, one scan of the record, every agent
rebuilt with its conversation, budget, usage and live leases) until the
first facade answer (``agents()``). Median of ``--runs`` starts, each on a
fresh connection to the same file. Goal: ≤ 1 s. ``--json`` adds one JSON line.

The file also holds ``--automation-rows`` hash-chained automation rows (20,000:
ten hourly automations for a month, a claim, a run agent and a run each), whose
chain the start checks too (``kernel/automations/chain_start``): the first
start walks all of it, later ones only what came after the recorded head. The
automation check alone is timed apart (median of ``--runs``).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernel.automations import chain, chain_start  # noqa: E402
from kernel.automations.store import AutomationStore  # noqa: E402
from kernel.compose import build_kernel  # noqa: E402
from kernel.providers.scripted import ScriptedProvider  # noqa: E402
from kernel.config.settings import Settings  # noqa: E402
from ledger import (  # noqa: E402
    AgentSpawn, Entry, LeaseGrant, Ledger, ModelRequest, ToolCall, ToolResult, UserTurn,
)

GOAL_S = 1.0


def write_record(path: Path, agents: int, messages: int, workspace: str) -> int:
    """The record of ``agents`` agents with ``messages`` conversation messages each; returns the entry count."""
    total = 0
    with Ledger(path) as ledger:
        for n in range(1, agents + 1):
            aid = f"a{n}"
            entries: list[Entry] = [AgentSpawn(actor=aid, name=f"agent-{n}", provider="anthropic",
                                               model="claude-sonnet-4-5", budget=10_000_000, workspace=workspace),
                                    LeaseGrant(actor="user", subject=aid, scope="fs", until=time.time() + 3600,
                                               duration_s=3600)]
            for turn in range(messages // 2):
                entries.append(UserTurn(actor=aid, text=f"turn {turn}: please look at notes/{turn}.md and tidy it"))
                calls = ({"id": f"c{n}_{turn}", "name": "fs_read", "input": {"path": f"notes/{turn}.md"}, "meta": {}},) \
                    if turn % 4 == 0 else ()
                entries.append(ModelRequest(
                    actor=aid, reason="user-turn", provider="anthropic", model="claude-sonnet-4-5", status="ok",
                    start=time.time(), duration_ms=900.0, first_token_ms=300.0, input_tokens=1200, output_tokens=150,
                    stop_reason="tool_use" if calls else "end_turn",
                    text=f"I read notes/{turn}.md and merged the two lists; the duplicates are gone. " * 3,
                    tool_calls=calls))
                for call in calls:
                    entries.append(ToolCall(actor=aid, tool="fs_read", scope="fs.read", input=call["input"],
                                            lease=None, call=call["id"]))
                    entries.append(ToolResult(actor=aid, cause=0, output={"bytes": 40}, call=call["id"],
                                              content="- [ ] call the bank\n- [x] water the plants\n" * 4))
            ledger.append_many(entries)
            total += len(entries)
    return total


def write_automations(path: Path, rows: int) -> int:
    """``rows`` automation rows (claims, run agents, runs), linked into the chain as the store links
    them, in one transaction (the store commits each; the chain is the same)."""
    AutomationStore(str(path)).close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN IMMEDIATE")
    written = 0
    slot = 0
    while written < rows:
        name, at = f"auto-{slot % 10}", 3600.0 * (slot // 10)
        for table, sql, args in (
                ("automation_claims", "INSERT INTO automation_claims VALUES (?,?,?,?,?,0)", (name, at, 0, "1:w", at)),
                ("automation_run_agents", "INSERT INTO automation_run_agents VALUES (?,?,?,?)", (name, at, 0, f"r{slot}")),
                ("automation_runs", "INSERT INTO automation_runs VALUES (?,?,?,?,?,?,?,?,?)",
                 (name, at, 0, at + 60, f"r{slot}", "succeeded", "", "done", "[]"))):
            cur = db.execute(sql, args)
            chain.append(db, table, int(cur.lastrowid or 0))
            written += 1
        slot += 1
    db.execute("COMMIT")
    db.close()
    return written


def automation_check_once(path: Path) -> float:
    store = AutomationStore(str(path))
    began = time.perf_counter()
    found = store.check_at_start(chain_start.head_path(path))
    elapsed = time.perf_counter() - began
    store.close()
    assert isinstance(found, chain.ChainIntact), found
    return elapsed


def start_once(path: Path, workspace: str) -> tuple[float, int]:
    began = time.perf_counter()
    ledger = Ledger(path)
    kernel = build_kernel(ledger=ledger, settings=Settings(workspace=workspace), providers=lambda _n: ScriptedProvider(),
                    restore=True)
    listed = kernel.agents.list()
    elapsed = time.perf_counter() - began
    ledger.close()
    return elapsed, len(listed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--automation-rows", type=int, default=20_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path, ws = Path(tmp) / "ledger.db", Path(tmp) / "ws"
        ws.mkdir()
        entries = write_record(path, args.agents, args.messages, str(ws))
        rows = write_automations(path, args.automation_rows) if args.automation_rows > 0 else 0
        times = []
        for _ in range(args.runs):
            elapsed, listed = start_once(path, str(ws))
            assert listed == args.agents, listed
            times.append(elapsed)
        checks = [automation_check_once(path) for _ in range(args.runs)]
    median = statistics.median(times)
    print(f"kernel start, {args.agents} agents x {args.messages} messages ({entries:,} entries, "
          f"{rows:,} automation rows): median {median * 1000:.0f} ms, best {min(times) * 1000:.0f} ms, "
          f"worst {max(times) * 1000:.0f} ms; the first start (nothing verified yet) {times[0] * 1000:.0f} ms "
          f"(goal <= {GOAL_S * 1000:.0f} ms: {'met' if median <= GOAL_S else 'NOT met'})")
    print(f"automation chain check at start (from the recorded head): median "
          f"{statistics.median(checks) * 1000:.1f} ms")
    if args.json:
        print(json.dumps({"agents": args.agents, "messages": args.messages, "entries": entries,
                          "median_s": median, "best_s": min(times), "worst_s": max(times), "goal_s": GOAL_S,
                          "automation_rows": rows, "first_start_s": times[0],
                          "automation_check_median_s": statistics.median(checks)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
