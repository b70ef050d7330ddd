"""What a tool call costs through ``agentdesk ask``, per provider, against the SDK alone.

For each provider, a loopback fake (in its own process, so its JSON work does
not share our interpreter) asks for 40 tool calls, alternating ``fs_write`` of
2 KB and ``fs_read`` of that file, then answers in text. Two runs each:

- ``agentdesk ask`` as a real subprocess (kernel, ledger, leases, real files);
- the floor: the official SDK alone driving the same loop with no kernel
  (``benchmarks/sdk_floor.py``), also a subprocess.

Per run: the gap between the end of one streamed reply and the next request
(median, p95, turn 1 and turn 40), the time from process start to its first
request, and the process's peak RSS. Goals: the kernel adds at most 0.4 ms
median to its SDK's floor; peak RSS <= 120 MB; start -> first request <= 1 s.
``--json`` prints one JSON object as the last line.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PROVIDERS = ("anthropic", "openai", "openai-chat", "gemini")
CALLS = 40
PAYLOAD = ("The quick brown fox jumps over the lazy dog; " * 46)[:2047] + "\n"  # 2 KB
GOALS = {"added_median_ms": 0.4, "peak_rss_mb": 120.0, "start_to_first_request_s": 1.0}


def script_turns(calls: int):
    from tests.fakes import Text, ToolCall, Turn, Usage

    turns = []
    for i in range(calls):
        path = f"bench/f{i // 2}.txt"
        call = (ToolCall("fs_write", {"path": path, "content": PAYLOAD}, id=f"call_{i}") if i % 2 == 0
                else ToolCall("fs_read", {"path": path}, id=f"call_{i}"))
        turns.append(Turn(parts=(call,), usage=Usage(1000 + 600 * i, 40)))
    turns.append(Turn(parts=(Text("All done."),), usage=Usage(1000 + 600 * calls, 10)))
    return turns


def _serve(conn) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.fakes import FakeProviderServer

    with FakeProviderServer() as srv:
        conn.send(srv.url)
        while True:
            command = conn.recv()
            if command == "stop":
                return
            if command == "script":
                srv.script(*script_turns(CALLS))
                conn.send(True)
            elif command == "timings":
                received = [r.received_at for r in srv.requests]
                conn.send((received, srv.replies_finished_at, srv.pending_turns, list(srv.failures)))


class RemoteFake:
    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_serve, args=(child,), daemon=True)
        self._proc.start()
        self.url = self._conn.recv()
        self._seen = 0
        self._finished_seen = 0

    def script(self) -> None:
        self._conn.send("script")
        self._conn.recv()

    def timings(self) -> tuple[list[float], list[float]]:
        """Request arrival and reply-end times of the run since the last call."""
        self._conn.send("timings")
        received, finished, pending, failures = self._conn.recv()
        if pending or failures:
            raise RuntimeError(f"the run did not go as scripted: {pending} turns left, failures {failures}")
        new = received[self._seen:], finished[self._finished_seen:]
        self._seen, self._finished_seen = len(received), len(finished)
        return new

    def close(self) -> None:
        self._conn.send("stop")
        self._proc.join(5)


def provider_env(name: str, url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "OPENAI", "GEMINI", "GOOGLE"))}
    if name == "anthropic":
        env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=url)
    elif name in ("openai", "openai-chat"):
        env.update(OPENAI_API_KEY="test-key", OPENAI_BASE_URL=url + "/v1")
    else:
        env.update(GEMINI_API_KEY="test-key", GOOGLE_GEMINI_BASE_URL=url)
    env["PYTHONPATH"] = str(ROOT)
    return env


def run_process(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run to completion; returns (start time on the perf_counter clock, peak RSS in MB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[2:4]} exited {proc.returncode}: {err[-2000:]}")
    return start, usage.ru_maxrss / 1024


def figures(start: float, received: list[float], finished: list[float], rss_mb: float) -> dict[str, float]:
    gaps = [(received[i + 1] - finished[i]) * 1000 for i in range(len(received) - 1)]
    ordered = sorted(gaps)
    return {
        "median_ms": round(statistics.median(gaps), 3),
        "p95_ms": round(ordered[max(0, int(len(ordered) * 0.95) - 1)], 3),
        "turn1_ms": round(gaps[0], 3),
        "turn40_ms": round(gaps[-1], 3),
        "start_to_first_request_s": round(received[0] - start, 3),
        "peak_rss_mb": round(rss_mb, 1),
    }


def measure(name: str, fake: RemoteFake, home: Path, ws: Path) -> dict[str, dict[str, float]]:
    env = provider_env(name, fake.url)
    out = {}
    fake.script()
    start, rss = run_process([sys.executable, str(ROOT / "benchmarks" / "sdk_floor.py"), name, fake.url], env)
    out["sdk"] = figures(start, *fake.timings(), rss)
    fake.script()
    env["AGENTDESK_HOME"] = str(home)
    argv = [sys.executable, "-m", "desktop.launcher", "ask", "write and read the bench files",
            "--provider", name, "--model", "bench-model", "--workspace", str(ws), "--grant", "fs=1h",
            "--budget", str(10**9)]
    start, rss = run_process(argv, env)
    out["agentdesk"] = figures(start, *fake.timings(), rss)
    out["added_median_ms"] = round(out["agentdesk"]["median_ms"] - out["sdk"]["median_ms"], 3)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--providers", default=",".join(PROVIDERS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    fake = RemoteFake()
    results = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name in args.providers.split(","):
                home, ws = Path(tmp) / name / "home", Path(tmp) / name / "ws"
                home.mkdir(parents=True)
                ws.mkdir()
                results[name] = measure(name, fake, home, ws)
    finally:
        fake.close()
    print(f"{CALLS} tool calls per run (fs_write 2 KB / fs_read alternating); gap = reply end -> next request")
    print(f"{'provider':12} {'run':10} {'median':>8} {'p95':>8} {'turn1':>8} {'turn40':>8} {'start->1st':>11} {'peak RSS':>9}")
    for name, res in results.items():
        for run in ("sdk", "agentdesk"):
            f = res[run]
            print(f"{name:12} {run:10} {f['median_ms']:7.2f}ms {f['p95_ms']:7.2f}ms {f['turn1_ms']:7.2f}ms "
                  f"{f['turn40_ms']:7.2f}ms {f['start_to_first_request_s']:10.3f}s {f['peak_rss_mb']:7.1f}MB")
        print(f"{'':12} kernel adds {res['added_median_ms']:+.2f} ms median (goal <= {GOALS['added_median_ms']})")
    print(f"goals: peak RSS <= {GOALS['peak_rss_mb']:.0f} MB, start -> first request <= {GOALS['start_to_first_request_s']} s")
    if args.json:
        print(json.dumps({"calls": CALLS, "results": results, "goals": GOALS}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
