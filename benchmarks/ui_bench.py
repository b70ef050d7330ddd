"""UI benchmark: 20 agents streaming at once with their Ask windows open.

    python benchmarks/ui_bench.py [--agents 20] [--seconds 4] [--rate 100] [--json]

Figures printed:
- event-loop stall: a 5 ms QTimer records how late each tick fires while
  every agent streams ``rate`` text deltas per second, until the last
  redraw the streams asked for has run (p50/p99/max lateness);
- start-up: from spawning ``python -m desktop.launcher`` (offscreen) to the
  main window being exposed, and which provider SDKs were loaded by then;
- memory per additional open Ask window (RSS delta, averaged);
- the same streams with the kernel out of process: the desktop attached
  (``attach_desktop``) to a kernel service in a process of its own, every
  event over the Unix socket (stall p99 goal <= 16 ms; skip: --in-process-only);
- the stall while four agents, one per provider, run 40-call tool loops
  through the real SDKs against loopback fakes (long conversations).
The last line with ``--json`` is the figures as one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, AsyncIterator

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kernel.providers.base import ProviderRequest, StreamEnd, StreamEvent, TextChunk, UsageReport  # noqa: E402


class PacedProvider:
    """Streams ``count`` words at ``rate`` deltas per second (real time: this is a benchmark).

    Each delta has a due time (start + i / rate) and the stream sleeps until
    it, so timer slack does not quietly lower the rate; a stream that falls
    behind (a stalled loop) catches up, and the rate reported is the one
    actually delivered.
    """

    name = "paced"

    def __init__(self, rate: float, count: int) -> None:
        self.rate, self.count = rate, count

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        yield UsageReport(input_tokens=500, output_tokens=0)
        loop = asyncio.get_running_loop()
        start = loop.time()
        for i in range(self.count):
            yield TextChunk(f"word{i} ")
            await asyncio.sleep(max(0.0, start + (i + 1) / self.rate - loop.time()))
        yield UsageReport(output_tokens=self.count)
        yield StreamEnd("end_turn")

    async def aclose(self) -> None:
        return None


def rss_kib() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else 0.0


class StallMeter:
    """A 5 ms Qt timer that records how late each tick fires: the event loop's stalls."""

    def __init__(self, interval_ms: int = 5) -> None:
        from PySide6.QtCore import QTimer

        self.interval_ms = interval_ms
        self.lateness: list[float] = []
        self._last = time.perf_counter()
        self._timer = QTimer()
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.lateness.append(max(0.0, (now - self._last) * 1000 - self.interval_ms))
        self._last = now

    def start(self) -> None:
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def figures(self, prefix: str) -> dict[str, float]:
        return {f"{prefix}_p50_ms": round(percentile(self.lateness, 50), 2),
                f"{prefix}_p99_ms": round(percentile(self.lateness, 99), 2),
                f"{prefix}_max_ms": round(max(self.lateness, default=0.0), 2)}


async def streaming(agents: int, seconds: float, rate: float, tmp: Path) -> dict[str, float]:
    from desktop.app import build_desktop, freeze_startup_objects
    from kernel.config.settings import Settings

    count = int(seconds * rate)
    workspace = tmp / "ws-streams"  # beside the home, not holding it (a workspace may not hold the ledger)
    workspace.mkdir()
    desk = build_desktop(tmp / "home", providers=lambda name: PacedProvider(rate, count),
                         settings=Settings(workspace=str(workspace)))
    freeze_startup_objects()  # as ``desktop.app.run`` does
    figures = await _stream_into(desk, agents, count)
    desk.ledger.close()
    return figures


def serve_paced(home: str, workspace: str, rate: float, count: int, ready: Any) -> None:
    """A kernel process for ``home`` (the kernel service over a kernel whose model is paced), until shut down."""
    from kernel.compose import build_kernel
    from kernel.config.home import socket_path
    from kernel.service.server import KernelServer
    from kernel.config.settings import Settings
    from ledger import Ledger

    async def main() -> None:
        ledger = Ledger(Path(home) / "ledger.db")
        kernel = build_kernel(ledger=ledger, settings=Settings(workspace=workspace),
                        providers=lambda name: PacedProvider(rate, count))
        server = KernelServer(kernel, socket_path(Path(home)))
        await server.start()
        ready.send("serving")
        await server.stopped.wait()
        await server.stop()
        await kernel.aclose()
        ledger.close()

    asyncio.run(main())


async def streaming_attached(agents: int, seconds: float, rate: float, tmp: Path) -> dict[str, float]:
    """The same streams with the kernel out of process: the desktop attached to a kernel service
    in a process of its own (as ``agentdesk`` runs by default), events over its Unix socket."""
    import multiprocessing

    from desktop.app import attach_desktop, freeze_startup_objects

    count = int(seconds * rate)
    home, workspace = tmp / "home-attached", tmp / "ws-attached"
    home.mkdir()
    workspace.mkdir()
    ctx = multiprocessing.get_context("spawn")
    parent, child_end = ctx.Pipe()
    child = ctx.Process(target=serve_paced, args=(str(home), str(workspace), rate, count, child_end))
    child.start()
    if not parent.poll(120):  # a real process starting: its word, with a deadline
        raise RuntimeError("the kernel process did not start")
    parent.recv()
    desk = await attach_desktop(home, grant_delay_ms=0)
    freeze_startup_objects()
    try:
        figures = await _stream_into(desk, agents, count, shutdown=True)
    finally:
        child.join(timeout=60)
    return {f"attached_{k}": v for k, v in figures.items()}


async def _stream_into(desk: Any, agents: int, count: int, shutdown: bool = False) -> dict[str, float]:
    """Open an Ask window per agent, stream ``count`` deltas into each, measure the loop's stalls."""

    desk.window.show()
    ids = [desk.kernel.agents.spawn(f"agent{i}", provider="paced", model="bench").id for i in range(agents)]
    await asyncio.sleep(0.2)
    gc.collect()
    await asyncio.sleep(0.01)  # Qt's turn (no nested processEvents inside a task: qasync would re-enter a task)
    before = rss_kib()
    for agent_id in ids:
        desk.window.window_for(agent_id)
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.3)
    gc.collect()
    per_window = (rss_kib() - before) / agents

    meter = StallMeter()
    started = time.perf_counter()
    for agent_id in ids:
        desk.kernel.agents.send(agent_id, "stream please")
    meter.start()
    await asyncio.gather(*(desk.kernel.agents.wait(agent_id) for agent_id in ids))
    elapsed = time.perf_counter() - started
    while not desk.bridge.frames.idle:  # the stall figures include the redraws the stream left behind
        await asyncio.sleep(0.01)
    meter.stop()
    deltas = agents * count
    for window in desk.window.windows.values():  # everything streamed really reached the screen
        window.transcript.flush_text()
        shown = window.transcript.blocks[-1].raw
        if shown != "".join(f"word{i} " for i in range(count)):
            raise RuntimeError(f"{window.agent_id} showed {len(shown)} characters, not the whole reply")
    desk.window._done = True
    if shutdown:
        desk.kernel.shutdown()
    await desk.kernel.aclose()
    desk.bridge.close()
    for window in list(desk.window.windows.values()):
        window.close()
    return {
        "agents": agents, "deltas": deltas, "stream_seconds": round(elapsed, 2),
        "deltas_per_second": round(deltas / elapsed, 1),
        **meter.figures("stall"),
        "rss_per_window_kib": round(per_window, 1),
    }


async def long_conversations(tmp: Path, calls: int = 40) -> dict[str, float]:
    """The loop while one agent per provider runs a 40-call tool loop through its real SDK.

    OpenAI's and Gemini's SDKs rebuild the whole conversation on every request
    (several ms of CPU at turn 40); the providers are built as the desktop builds
    them (``out_of_process=True``), so that work runs in provider host processes.
    Each agent talks to its own loopback fake in another process, with all
    its Ask windows open; the 5 ms timer measures the stall as above.
    """

    from desktop.app import build_desktop
    from kernel.providers.registry import make_provider
    from kernel.config.settings import Settings

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from provider_bench import RemoteFake

    names = ("anthropic", "openai", "openai-chat", "gemini")
    fakes = {name: RemoteFake() for name in names}
    settings = Settings(workspace=str(tmp / "ws"), default_budget=10**9)
    (tmp / "ws").mkdir()
    built: dict[str, object] = {}

    def provider(name: str):
        if name not in built:
            url = fakes[name].url
            base = url + "/v1" if name.startswith("openai") else url
            built[name] = make_provider(name, api_key="test-key", base_url=base, settings=settings,
                                        out_of_process=True)  # as the desktop builds them
        return built[name]

    desk = build_desktop(tmp / "home2", providers=provider, settings=settings)
    desk.window.show()
    ids = []
    for name in names:
        fakes[name].script()
        agent = desk.kernel.agents.spawn(f"{name}-agent", provider=name, model="bench-model")
        desk.kernel.leases.grant(agent.id, "fs", 3600)  # granted up front: no dialogs in a benchmark
        desk.window.window_for(agent.id)
        ids.append(agent.id)
    for name in names:  # SDK import and client set-up happen once a session, measured apart below
        await provider(name).warm()
    meter = StallMeter()
    meter.start()
    started = time.perf_counter()
    for agent_id in ids:
        desk.kernel.agents.send(agent_id, "write and read the bench files")
    await asyncio.gather(*(desk.kernel.agents.wait(agent_id) for agent_id in ids))
    elapsed = time.perf_counter() - started
    meter.stop()
    states = {desk.kernel.agents.get(a).state for a in ids}
    desk.window._done = True
    await desk.kernel.aclose()
    for p in built.values():
        await p.aclose()
    desk.bridge.close()
    for window in list(desk.window.windows.values()):
        window.close()
    desk.ledger.close()
    for fake in fakes.values():
        fake.timings()  # raises if a run did not go as scripted
        fake.close()
    if states != {"idle"}:
        raise RuntimeError(f"the SDK agents ended {states}")
    return {"sdk_agents": len(ids), "sdk_tool_calls": len(ids) * calls, "sdk_seconds": round(elapsed, 2),
            **meter.figures("sdk_stall")}


def startup(runs: int = 3) -> dict[str, object]:
    times, sdk = [], ""
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as home:
            env = dict(os.environ, QT_QPA_PLATFORM="offscreen", AGENTDESK_EXIT_WHEN_SHOWN="1", AGENTDESK_HOME=home)
            t0 = time.time()
            try:
                out = subprocess.run([sys.executable, "-m", "desktop.launcher"], cwd=ROOT, env=env,
                                     capture_output=True, text=True, timeout=60)
            finally:  # the desktop started a kernel service for this home, which outlives it: stop it
                subprocess.run([sys.executable, "-m", "desktop.launcher", "kernel", "--stop"], cwd=ROOT, env=env,
                               capture_output=True, timeout=60)
            line = next((l for l in out.stdout.splitlines() if l.startswith("shown_at=")), None)
            if line is None:
                raise RuntimeError(f"the desktop did not report being shown: {out.stderr[-2000:]}")
            fields = dict(part.split("=", 1) for part in line.split())
            times.append((float(fields["shown_at"]) - t0) * 1000)
            sdk = fields["sdk_loaded"]
    return {"startup_ms_median": round(statistics.median(times), 1), "startup_ms_min": round(min(times), 1),
            "sdk_loaded_at_startup": sdk}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--in-process-only", action="store_true", help="skip the kernel-out-of-process run")
    args = parser.parse_args(argv)

    import qasync

    from desktop.app import make_app

    figures: dict[str, object] = dict(startup())
    app = make_app([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory() as tmp, loop:
        figures.update(loop.run_until_complete(streaming(args.agents, args.seconds, args.rate, Path(tmp))))
        figures.update(loop.run_until_complete(long_conversations(Path(tmp))))
        if not args.in_process_only:
            figures.update(loop.run_until_complete(streaming_attached(args.agents, args.seconds, args.rate,
                                                                      Path(tmp))))
    print(f"start-up to main window shown: {figures['startup_ms_median']} ms median "
          f"({figures['startup_ms_min']} ms best), provider SDKs loaded: {figures['sdk_loaded_at_startup']}")
    print(f"{figures['agents']} agents × {args.rate:.0f} deltas/s with {figures['agents']} Ask windows open: "
          f"{figures['deltas']} deltas in {figures['stream_seconds']} s ({figures['deltas_per_second']}/s)")
    print(f"event-loop stall (5 ms timer lateness): p50 {figures['stall_p50_ms']} ms, "
          f"p99 {figures['stall_p99_ms']} ms, max {figures['stall_max_ms']} ms")
    print(f"memory per additional open Ask window: {figures['rss_per_window_kib']} KiB RSS")
    if "attached_agents" in figures:
        print(f"the same with the kernel out of process (the desktop attached over its socket): "
              f"{figures['attached_deltas']} deltas in {figures['attached_stream_seconds']} s "
              f"({figures['attached_deltas_per_second']}/s), event-loop stall p50 {figures['attached_stall_p50_ms']} ms, "
              f"p99 {figures['attached_stall_p99_ms']} ms (goal <= 16), max {figures['attached_stall_max_ms']} ms")
    print(f"{figures['sdk_agents']} agents in 40-call tool loops through the real SDKs (anthropic, openai, "
          f"openai-chat, gemini; conversations grow to ~80 messages): {figures['sdk_seconds']} s, "
          f"event-loop stall p50 {figures['sdk_stall_p50_ms']} ms, p99 {figures['sdk_stall_p99_ms']} ms, "
          f"max {figures['sdk_stall_max_ms']} ms")
    if args.json:
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
