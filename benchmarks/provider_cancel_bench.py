"""How soon the server sees a stream closed or cancelled mid-reply, per adapter (in process and hosted).

tests/providers/test_contract.py checks that a closed or cancelled stream is
abandoned (the reply never finishes on the server); the latency figure lives
here, where a loaded CI machine cannot make it flaky. Goal: the loopback fake
sees the disconnect within 0.5 s of ``aclose()`` or ``cancel()``.

Run from the repository root: ``python benchmarks/provider_cancel_bench.py [--json] [--runs N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernel.core.messages import user_text  # noqa: E402
from kernel.providers.base import ProviderRequest, TextChunk  # noqa: E402
from tests.fakes import FakeProviderServer, Text, Turn  # noqa: E402

GOAL_S = 0.5


def _adapter(name: str, hosted: bool, srv: FakeProviderServer) -> Any:
    base = {"anthropic": srv.anthropic_base_url, "openai": srv.openai_base_url, "openai-chat": srv.openai_base_url,
            "gemini": srv.gemini_base_url}[name]
    kw: dict[str, Any] = {"api_key": "test-key", "base_url": base, "timeout_s": 10.0}
    if hosted:
        from kernel.providers.process_host import ProcessProvider
        return ProcessProvider(name, **kw)
    if name == "anthropic":
        from kernel.providers.anthropic import AnthropicProvider
        return AnthropicProvider(**kw)
    if name == "openai":
        from kernel.providers.openai_responses import OpenAIResponsesProvider
        return OpenAIResponsesProvider(**kw)
    if name == "openai-chat":
        from kernel.providers.openai_chat import OpenAIChatProvider
        return OpenAIChatProvider(**kw)
    from kernel.providers.gemini import GeminiProvider
    return GeminiProvider(**kw)


async def _once(provider: Any, srv: FakeProviderServer, how: str) -> float:
    request = ProviderRequest(system="You are careful.", messages=(user_text("hello"),), model="test-model")
    events = provider.stream(request)
    if how == "aclose":
        async for event in events:
            if isinstance(event, TextChunk):
                break
        started = time.perf_counter()
        await events.aclose()
    else:
        first = asyncio.Event()

        async def consume() -> None:
            async for event in events:
                if isinstance(event, TextChunk):
                    first.set()

        task = asyncio.create_task(consume())
        await first.wait()
        started = time.perf_counter()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
    if not await asyncio.to_thread(srv.wait_idle, 5.0):
        raise RuntimeError("the server never saw the disconnect")
    return time.perf_counter() - started


def measure(runs: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    for name, hosted in (("anthropic", False), ("openai", False), ("openai-chat", False), ("gemini", False),
                         ("openai", True), ("openai-chat", True), ("gemini", True)):
        for how in ("aclose", "cancel"):
            samples = []
            with FakeProviderServer(expected_key="test-key") as srv:
                provider = _adapter(name, hosted, srv)

                async def go() -> None:
                    try:
                        for _ in range(runs):
                            srv.script(Turn(parts=(Text("one two three four five six seven eight", chunks=8),),
                                            delay=0.15))
                            samples.append(await _once(provider, srv, how))
                    finally:
                        await provider.aclose()

                asyncio.run(go())
            figures[f"{name}{'@host' if hosted else ''}_{how}_ms"] = round(statistics.median(samples) * 1000, 1)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = measure(args.runs)
    for key, ms in figures.items():
        print(f"{key:28} {ms:8.1f} ms  {'ok' if ms < GOAL_S * 1000 else 'OVER GOAL'}")
    if args.json:
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
