"""How long compaction takes to assemble on a 10,000-entry conversation, the summary request aside.

    python benchmarks/compaction_bench.py [RUNS]

An agent's record of 10,000 entries (user turns, replies with tool calls, calls,
file changes, results) is restored by a kernel; then the two ways of making
its context smaller are timed: clearing old tool results (a fold of the whole
record to name each result's entry) and compaction (the cut, the transcript
for the summarizer, the frontier and range read from the ledger, the user's
words, the compaction entry). The summary comes from a scripted provider, so
only the kernel's own work is measured. Goal (issue 24): assembly < 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernel.agents.compact_step import compact  # noqa: E402
from kernel.agents.context_size import next_request_tokens  # noqa: E402
from kernel.agents.context_step import clear_old_results  # noqa: E402
from kernel.compose import build_kernel  # noqa: E402
from kernel.config.settings import Settings  # noqa: E402
from kernel.core.clock import ManualClock  # noqa: E402
from kernel.providers.scripted import ScriptedProvider, reply  # noqa: E402
from ledger import (  # noqa: E402
    AgentSpawn, Entry, FileChange, Ledger, ModelRequest, ToolCall, ToolResult, UserTurn,
)

ENTRIES = 10_000
RUNS = 5
AGENT = "a1"


def _record(ledger: Ledger, ws: Path) -> int:
    entries: list[Entry] = [AgentSpawn(actor=AGENT, name="worker", provider="scripted", model="m", budget=10**9,
                                       workspace=str(ws))]
    n = 0
    while len(entries) < ENTRIES:
        entries.append(UserTurn(actor=AGENT, text=f"step {n}: edit the next file"))
        for k in range(3):
            cid = f"call_{n}_{k}"
            entries.append(ModelRequest(actor=AGENT, reason="tool-results", provider="scripted", model="m",
                                        status="ok", input_tokens=1000, output_tokens=20, stop_reason="tool_use",
                                        tool_calls=({"id": cid, "name": "fs_write",
                                                     "input": {"path": f"f{n}.txt", "content": "x"}, "meta": {}},)))
            entries.append(ToolCall(actor=AGENT, tool="fs_write", scope="fs.write", input={"path": f"f{n}.txt"},
                                    call=cid))
            call_seq = len(entries)  # a fresh ledger numbers from 1
            entries.append(FileChange(actor=AGENT, path=str(ws / f"f{n}.txt"), before=None, after=None,
                                      cause=call_seq))
            entries.append(ToolResult(actor=AGENT, cause=call_seq, call=cid, content="written " + "x" * 600))
        entries.append(ModelRequest(actor=AGENT, reason="tool-results", provider="scripted", model="m", status="ok",
                                    input_tokens=1000, output_tokens=20, stop_reason="end_turn", text=f"done {n}"))
        n += 1
    ledger.append_many(entries)
    return len(entries)


@dataclass(frozen=True)
class Run:
    messages: int
    load_ms: float
    estimate_ms: float
    clear_ms: float
    clear_cpu: float
    compact_ms: float
    compact_cpu: float
    cleared: bool
    compacted: bool


def _once(db: Path, ws: Path, run: int) -> Run:
    """One run on a fresh copy of the record (milliseconds of wall-clock and of this process's CPU)."""
    copy = db.with_name(f"run{run}.db")
    shutil.copyfile(db, copy)
    clock = ManualClock()
    with Ledger(copy, clock=clock.now) as ledger:
        provider = ScriptedProvider()
        provider.script(reply("A summary of the work so far."))
        kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws)), providers=lambda _n: provider,
                              clock=clock, restore=True)
        agent = kernel.agents.table[AGENT]
        ledger.append(UserTurn(actor="warm-up", text="load the redaction rules once, as a running kernel has"))
        start = time.perf_counter()
        messages = len(agent.conversation)
        load_ms = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        next_request_tokens(agent)  # the estimate made before every request: a running agent's sizes are known
        estimate_ms = (time.perf_counter() - start) * 1000
        start, cpu = time.perf_counter(), time.process_time()
        cleared = clear_old_results(agent, "manual")
        clear_ms = (time.perf_counter() - start) * 1000
        clear_cpu = (time.process_time() - cpu) * 1000
        agent.context.just_compacted = False
        loop = asyncio.new_event_loop()
        try:
            start, cpu = time.perf_counter(), time.process_time()
            done = loop.run_until_complete(compact(agent, "manual"))
            compact_ms = (time.perf_counter() - start) * 1000
            compact_cpu = (time.process_time() - cpu) * 1000
        finally:
            loop.close()
    copy.unlink()
    return Run(messages, load_ms, estimate_ms, clear_ms, clear_cpu, compact_ms, compact_cpu, cleared, done)


def main() -> None:
    parser = argparse.ArgumentParser(description="Compaction on a 10,000-entry ledger (issue 24): median wall and CPU.")
    parser.add_argument("runs", nargs="?", type=int, default=RUNS, help=f"runs on fresh copies (default {RUNS})")
    runs = max(1, parser.parse_args().runs)
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        db = Path(tmp) / "ledger.db"
        with Ledger(db, clock=ManualClock().now) as ledger:
            count = _record(ledger, ws)
        results = [_once(db, ws, run) for run in range(runs)]

    def med(name: str) -> float:
        return float(statistics.median(float(getattr(r, name)) for r in results))

    def each(name: str) -> str:
        return ", ".join(f"{getattr(r, name):.0f}" for r in results)

    print(f"{count:,} entries, {results[0].messages:,} messages in the conversation (read from the record in "
          f"{med('load_ms'):.0f} ms; the first estimate after a restart {med('estimate_ms'):.0f} ms); "
          f"median of {runs} runs, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"clear old tool results: median {med('clear_ms'):6.1f} ms wall, {med('clear_cpu'):5.1f} ms CPU  "
          f"({'cleared' if all(r.cleared for r in results) else 'NOT cleared'}; wall runs: {each('clear_ms')})")
    print(f"compaction assembly:    median {med('compact_ms'):6.1f} ms wall, {med('compact_cpu'):5.1f} ms CPU  "
          f"({'compacted' if all(r.compacted for r in results) else 'NOT compacted'}; wall runs: {each('compact_ms')}; "
          f"fastest {min(r.compact_ms for r in results):.1f} ms; goal < 50 ms)")

if __name__ == "__main__":
    main()
