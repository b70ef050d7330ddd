"""How long each adapter blocks the caller's event loop per request, on the loop vs in a host process.

Drives a 40-turn tool loop (about 2 KB of tool output per turn) through each
adapter against the loopback fake, with a watchdog task that records the
longest gap between its wake-ups while a request is being built and sent (from
calling ``stream()`` to the first event). Prints turn 1, turn 40 and the
median of those worst gaps, for each SDK run on the caller's loop and, for the
providers the desktop hosts (``catalog.ProviderInfo.out_of_process``), in a
provider host process (``process_host``). The worker-thread mode this once
compared (``offloop``) is gone: the desktop, the CLI and the host never used it.

    python benchmarks/provider_loop_block.py
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kernel.core.messages import Message, TextPart, ToolResultPart, ToolSpec, ToolUse, user_text  # noqa: E402
from kernel.providers.base import ProviderRequest  # noqa: E402
from kernel.providers.catalog import CATALOG  # noqa: E402

TURNS = 40
TOOLS = tuple(ToolSpec(f"tool_{i}", f"Tool number {i}.", {"type": "object", "properties": {
    "path": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["path"]}) for i in range(8))


class RemoteFake:
    """The fake server in its own process, so its JSON work does not hold this process's GIL."""

    def __init__(self, turns: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_serve_fake, args=(child, turns), daemon=True)
        self._proc.start()
        url = self._conn.recv()
        self.anthropic_base_url = self.gemini_base_url = url
        self.openai_base_url = url + "/v1"

    def close(self) -> None:
        self._conn.send("stop")
        self._proc.join(5)


def _serve_fake(conn, turns: int) -> None:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tests.fakes import FakeProviderServer, Text, ToolCall, Turn

    with FakeProviderServer() as srv:
        srv.script(*[Turn(parts=(Text("Let me look."), ToolCall("tool_1", {"path": f"f{i}.txt"}, id=f"call_{i}")))
                     for i in range(turns)])
        conn.send(srv.url)
        conn.recv()


def build(name: str, srv: RemoteFake, hosted: bool):
    """The adapter on this loop, or (``hosted``) in a provider host process as the desktop runs it."""
    base_url = srv.anthropic_base_url if name == "anthropic" else (
        srv.gemini_base_url if name == "gemini" else srv.openai_base_url)
    if hosted:
        from kernel.providers.process_host import ProcessProvider
        return ProcessProvider(name, api_key="test-key", base_url=base_url)
    from kernel.providers.registry import build_adapter
    return build_adapter(name, "test-key", base_url, 120.0)


class Watchdog:
    """Records the longest gap between loop iterations while armed."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.armed = False
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0)
            now = time.perf_counter()
            if self.armed:
                self.worst = max(self.worst, now - last)
            last = now

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        assert self._task is not None
        self._task.cancel()


async def tool_loop(name: str, hosted: bool) -> list[float]:
    blocks: list[float] = []
    srv = RemoteFake(TURNS)
    try:
        provider = build(name, srv, hosted)
        history: list[Message] = [user_text("Summarise the files.")]
        watchdog = Watchdog()
        watchdog.start()
        for i in range(TURNS):
            request = ProviderRequest("You are careful. " * 20, tuple(history), TOOLS, model="test-model")
            watchdog.worst, watchdog.armed = 0.0, True
            events = provider.stream(request)
            first = await events.__anext__()
            watchdog.armed = False
            blocks.append(watchdog.worst)
            rest = [first] + [e async for e in events]
            calls = [e for e in rest if hasattr(e, "input") and e.input is not None]
            history.append(Message("assistant", (TextPart("Let me look."),
                                                 *(ToolUse(c.id, c.name, c.input, c.meta) for c in calls))))
            history.append(Message("user", tuple(ToolResultPart(c.id, c.name, "x" * 2048) for c in calls)))
        watchdog.stop()
        await provider.aclose()
    finally:
        srv.close()
    return blocks


def main() -> None:
    print(f"{'adapter':<12} {'mode':<9} {'turn 1':>8} {'turn 40':>8} {'median':>8}   (worst loop stall, ms)")
    for name in ("anthropic", "openai", "openai-chat", "gemini"):
        for hosted in (False, True) if CATALOG[name].out_of_process else (False,):
            blocks = asyncio.run(tool_loop(name, hosted))
            ms = [b * 1000 for b in blocks]
            print(f"{name:<12} {'host' if hosted else 'on-loop':<9} {ms[0]:8.2f} {ms[-1]:8.2f} "
                  f"{statistics.median(ms):8.2f}")


if __name__ == "__main__":
    main()
