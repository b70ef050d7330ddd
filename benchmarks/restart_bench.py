"""Kernel start on a long record: 100 agents × 200 conversation messages → serving.

Writes a ledger as a real run would leave it (spawn; then per agent 100
user turns and 100 replies, every fourth reply calling a tool whose call and
result are on the record too; some leases), then times a new ``Kernel`` with
``restore=True`` (the check at start, one scan of the record, every agent
rebuilt with its conversation, budget, usage and live leases) until the
first facade answer (``agents()``). Median of ``--runs`` starts, each on a
fresh connection to the same file. Goal: ≤ 1 s. ``--json`` adds one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernel.facade import Kernel  # noqa: E402
from kernel.providers.scripted import ScriptedProvider  # noqa: E402
from kernel.settings import Settings  # noqa: E402
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


def start_once(path: Path, workspace: str) -> tuple[float, int]:
    began = time.perf_counter()
    ledger = Ledger(path)
    kernel = Kernel(ledger=ledger, settings=Settings(workspace=workspace), providers=lambda _n: ScriptedProvider(),
                    restore=True)
    listed = kernel.agents()
    elapsed = time.perf_counter() - began
    ledger.close()
    return elapsed, len(listed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path, ws = Path(tmp) / "ledger.db", Path(tmp) / "ws"
        ws.mkdir()
        entries = write_record(path, args.agents, args.messages, str(ws))
        times = []
        for _ in range(args.runs):
            elapsed, listed = start_once(path, str(ws))
            assert listed == args.agents, listed
            times.append(elapsed)
    median = statistics.median(times)
    print(f"kernel start, {args.agents} agents x {args.messages} messages ({entries:,} entries): "
          f"median {median * 1000:.0f} ms, best {min(times) * 1000:.0f} ms, worst {max(times) * 1000:.0f} ms "
          f"(goal <= {GOAL_S * 1000:.0f} ms: {'met' if median <= GOAL_S else 'NOT met'})")
    if args.json:
        print(json.dumps({"agents": args.agents, "messages": args.messages, "entries": entries,
                          "median_s": median, "best_s": min(times), "worst_s": max(times), "goal_s": GOAL_S}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
