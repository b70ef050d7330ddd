"""How long compaction takes to assemble on a 10,000-entry conversation, the summary request aside.

    python benchmarks/compaction_bench.py

An agent's record of 10,000 entries (user turns, replies with tool calls, calls,
file changes, results) is restored by a kernel; then the two ways of making
its context smaller are timed: clearing old tool results (a fold of the whole
record to name each result's entry) and compaction (the cut, the transcript
for the summarizer, the frontier and range read from the ledger, the user's
words, the compaction entry). The summary comes from a scripted provider, so
only the kernel's own work is measured. Goal (issue 24): assembly < 50 ms.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernel.agents.compact_step import compact  # noqa: E402
from kernel.agents.context_step import clear_old_results  # noqa: E402
from kernel.compose import build_kernel  # noqa: E402
from kernel.config.settings import Settings  # noqa: E402
from kernel.core.clock import ManualClock  # noqa: E402
from kernel.providers.scripted import ScriptedProvider, reply  # noqa: E402
from ledger import (  # noqa: E402
    AgentSpawn, Entry, FileChange, Ledger, ModelRequest, ToolCall, ToolResult, UserTurn,
)

ENTRIES = 10_000
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


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        clock = ManualClock()
        with Ledger(Path(tmp) / "ledger.db", clock=clock.now) as ledger:
            count = _record(ledger, ws)
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
            cleared = clear_old_results(agent, "manual")
            clear_ms = (time.perf_counter() - start) * 1000
            agent.context.just_compacted = False
            start = time.perf_counter()
            done = asyncio.run(compact(agent, "manual"))
            compact_ms = (time.perf_counter() - start) * 1000
    print(f"{count:,} entries, {messages:,} messages in the conversation (read from the record in {load_ms:.0f} ms)")
    print(f"clear old tool results: {clear_ms:7.1f} ms  ({'cleared' if cleared else 'nothing to clear'})")
    print(f"compaction assembly:    {compact_ms:7.1f} ms  ({'compacted' if done else 'nothing'}; goal < 50 ms)")


if __name__ == "__main__":
    main()
