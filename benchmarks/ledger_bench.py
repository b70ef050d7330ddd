"""Ledger figures: append overhead against raw sqlite3, paging a million entries, undoing 1,000 files,
chaining, verifying and start-checking a million entries, and processes racing to create one ledger.

Run from the repository root: ``python benchmarks/ledger_bench.py [--json]``.
Human-readable lines come first; with ``--json`` the last line is one JSON
object of the figures. Everything happens in a temporary folder, removed after.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ledger import Intact, Ledger, ToolCall  # noqa: E402

GOALS = {"append_ratio": (">=", 0.5), "page_ms_1m": ("<=", 5.0), "filter_ms_1m": ("<=", 5.0),
         "undo_1000_s": ("<=", 1.0), "migrate_chain_s_1m": ("<=", 60.0), "verify_s_1m": ("<=", 30.0),
         "start_check_ms_1m": ("<=", 50.0), "race_failures": ("<=", 0)}
ACTORS = [f"agent-{i}" for i in range(20)]


def _call(i: int) -> ToolCall:
    return ToolCall(actor="agent-1", tool="fs.read", scope="fs.read", input={"path": f"/w/src/f{i}.py", "n": i})


def append_ratio(tmp: Path, n: int = 20_000) -> tuple[float, float, float]:
    """Ledger.append per second ÷ raw single-insert transactions per second, same table, same pragmas."""
    ledger = Ledger(tmp / "append.db")
    Ledger(tmp / "raw.db").close()  # same schema, indexes and triggers for the raw side
    raw = sqlite3.connect(tmp / "raw.db", isolation_level=None)
    raw.execute("PRAGMA journal_mode=WAL")
    raw.execute("PRAGMA synchronous=NORMAL")
    # The raw side stores a hash too (a fixed one), so both rows are the same size.
    insert = ("INSERT INTO entries(seq, ts, actor, kind, version, tool, scope, path, cause, lease, before, after, "
              "reverts, body, hash) VALUES (?, ?, ?, 'tool', 1, ?, ?, NULL, NULL, ?, NULL, NULL, NULL, ?, ?)")
    digest = os.urandom(32)
    calls = [_call(i) for i in range(n)]
    best_ledger = best_raw = 0.0
    for _ in range(3):  # interleave rounds so both sides see the same machine state
        t = time.perf_counter()
        for call in calls:
            ledger.append(call)
        best_ledger = max(best_ledger, n / (time.perf_counter() - t))
        seq = raw.execute("SELECT COALESCE(MAX(seq), 0) FROM entries").fetchone()[0]
        t = time.perf_counter()
        for call in calls:  # one autocommit INSERT = one transaction per row
            seq += 1  # the in-order trigger takes only the next seq
            raw.execute(insert, (seq, time.time(), call.actor, call.tool, call.scope, call.lease,
                                 json.dumps({"input": call.input}, separators=(",", ":")), digest))
        best_raw = max(best_raw, n / (time.perf_counter() - t))
    ledger.close()
    raw.close()
    return best_ledger / best_raw, best_ledger, best_raw


def build_million(path: Path, n: int = 1_000_000) -> float:
    """A ledger of ``n`` entries as an older Agentdesk left it (no hash chain yet), built with big
    executemany transactions through a raw connection; returns the seconds the chain migration took
    when it is opened (computed once, then recorded as migration 005_chain)."""
    Ledger(path, _schema_upto=3).close()
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("PRAGMA journal_mode=WAL")
    raw.execute("PRAGMA synchronous=OFF")
    now = time.time() - n
    batch = 100_000
    for start in range(0, n, batch):
        rows = []
        for i in range(start, min(n, start + batch)):
            actor = ACTORS[i % len(ACTORS)]
            if i % 3 == 2:
                rows.append((now + i, actor, "fs.write", None, None, f"/w/src/f{i % 5000}.py", i, None,
                             "ab" * 32, "cd" * 32, '{"mode":420,"stored":false}'))
            else:
                rows.append((now + i, actor, "tool", "fs.write", "fs.write", None, None, None, None, None,
                             json.dumps({"input": {"path": f"/w/src/f{i % 5000}.py", "n": i}})))
        raw.execute("BEGIN")
        raw.executemany("INSERT INTO entries(ts, actor, kind, version, tool, scope, path, cause, lease, before, "
                        "after, body) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        raw.execute("COMMIT")
    raw.close()
    t = time.perf_counter()
    Ledger(path).close()
    return time.perf_counter() - t


def race(rounds: int, children: int = 3) -> int:
    """Processes forked together opening one brand-new ledger and appending: how many failed."""
    failures = 0
    with tempfile.TemporaryDirectory(prefix="ledger-race-") as folder:
        for r in range(rounds):
            path = Path(folder) / f"home{r}" / "ledger.db"
            gate_r, gate_w = os.pipe()
            pids = []
            for _ in range(children):
                pid = os.fork()
                if pid == 0:  # the child: wait for the gate, then open and append
                    os.close(gate_w)
                    os.read(gate_r, 1)
                    try:
                        with Ledger(path) as ledger:
                            ledger.append(ToolCall(actor="racer", tool="t", scope="s"))
                    except BaseException as exc:  # noqa: BLE001 - a forked child reports any failure, then exits
                        print(f"  race: {exc}", file=sys.stderr)
                        os._exit(2)
                    os._exit(0)
                pids.append(pid)
            os.close(gate_r)
            os.close(gate_w)  # opens the gate for every child at once
            for pid in pids:
                failures += os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0
    return failures


def median_ms(fn, runs: int = 15) -> float:
    fn()  # warm the page cache once
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def undo_1000(tmp: Path) -> float:
    ledger = Ledger(tmp / "undo.db")
    ws = tmp / "ws"
    point = ledger.append(ToolCall(actor="user", tool="x", scope="x")).seq
    for i in range(1000):
        ledger.write_file(actor="agent-1", path=ws / f"d{i % 10}" / f"f{i}.txt", content=os.urandom(10_240),
                          cause=point)
    t = time.perf_counter()
    report = ledger.undo(point)
    elapsed = time.perf_counter() - t
    assert len(report.steps) == 1000 and not report.conflicts and not any(ws.rglob("*.txt"))
    ledger.close()
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--race", type=int, default=100, metavar="ROUNDS",
                        help="rounds of processes racing to create a ledger (default 100)")
    args = parser.parse_args()
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="ledger-bench-") as folder:
        tmp = Path(folder)
        ratio, ledger_rate, raw_rate = append_ratio(tmp)
        figures["append_ratio"] = round(ratio, 3)
        print(f"append: Ledger.append {ledger_rate:,.0f}/s, raw sqlite3 {raw_rate:,.0f}/s")
        t = time.perf_counter()
        figures["migrate_chain_s_1m"] = round(build_million(tmp / "big.db", args.entries), 2)
        print(f"built and chained a {args.entries:,}-entry ledger in {time.perf_counter() - t:.1f} s")
        big = Ledger(tmp / "big.db")
        t = time.perf_counter()
        full = big.verify_chain()  # also records the head the start check trusts
        figures["verify_s_1m"] = round(time.perf_counter() - t, 2)
        assert isinstance(full, Intact) and full.entries == args.entries, full
        figures["start_check_ms_1m"] = round(median_ms(big.check_at_start, runs=5), 3)
        newest = big.page(limit=200)
        assert len(newest) == 200 and newest[0].seq == args.entries
        figures["page_ms_1m"] = round(median_ms(lambda: big.page(limit=200)), 3)
        one = big.page(actor="agent-7", limit=200)
        assert len(one) == 200 and {e.actor for e in one} == {"agent-7"}
        figures["filter_ms_1m"] = round(median_ms(lambda: big.page(actor="agent-7", limit=200)), 3)
        print("plans: newest", big.page_plan(limit=200), "actor", big.page_plan(actor="agent-7", limit=200))
        big.close()
        figures["undo_1000_s"] = round(undo_1000(tmp), 3)
    figures["race_failures"] = race(args.race)
    print(f"race: {args.race} rounds of 3 processes opening one new ledger, {figures['race_failures']} failed")
    met = True
    for name, value in figures.items():
        op, goal = GOALS[name]
        ok = value >= goal if op == ">=" else value <= goal
        met &= ok
        print(f"{name:>14} = {value:<10} goal {op} {goal:<6} {'ok' if ok else 'MISSED'}")
    if args.json:
        print(json.dumps({**figures, "goals_met": met}))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
