"""The scripted screenshot session: 30 screenshots of 2880×1800, half read with fs_read and half pasted, on a
real kernel with a real adapter and SDK against the loopback fake (shared by tests/images/test_session.py and
benchmarks/image_bench.py)."""

from __future__ import annotations

import asyncio
import base64
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from kernel.compose import build_kernel
from kernel.config.settings import Settings
from kernel.core.clock import ManualClock
from ledger import Ledger
from tests.fakes import FakeProviderServer, Text, ToolCall, Turn

SHOTS = 30
MODELS = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-5", "openai-chat": "gpt-4o", "gemini": "gemini-3-pro"}


def quick_screenshot(seed: int, width: int = 2880, height: int = 1800) -> bytes:
    """A 2880×1800 screenshot-like PNG that is cheap to make: a title bar, panes and a few 'text' bars."""
    image = Image.new("RGB", (width, height), (245, 245, 245))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, 56), fill=(30 + seed * 7 % 200, 80, 150))
    draw.rectangle((0, 56, 420, height), fill=(225, 228, 232))
    for row in range(40):
        y = 90 + row * 42
        draw.rectangle((460, y, 460 + (seed * 131 + row * 97) % 1900 + 300, y + 14), fill=(40, 40, 40))
    draw.text((470, 20), f"screenshot {seed}", fill=(255, 255, 255))
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=1)
    return out.getvalue()


@dataclass
class SessionOutcome:
    states: list[str] = field(default_factory=list)
    fitted: int = 0
    requests: list[Any] = field(default_factory=list)
    rejections: list[str] = field(default_factory=list)


def provider_for(name: str, srv: FakeProviderServer) -> Any:
    from kernel.providers.anthropic import AnthropicProvider
    from kernel.providers.gemini import GeminiProvider
    from kernel.providers.openai_chat import OpenAIChatProvider
    from kernel.providers.openai_responses import OpenAIResponsesProvider

    cls, url = {"anthropic": (AnthropicProvider, srv.anthropic_base_url),
                "openai": (OpenAIResponsesProvider, srv.openai_base_url),
                "openai-chat": (OpenAIChatProvider, srv.openai_base_url),
                "gemini": (GeminiProvider, srv.gemini_base_url)}[name]
    return cls(api_key="test-key", base_url=url, timeout_s=30.0)


def run_session(provider_name: str, tmp: Path, shots: list[bytes], model: str | None = None) -> SessionOutcome:
    """Half the shots pasted with a message, half read by the model with fs_read (one turn each), then the
    first file read again (fitted once: cached by its hash)."""
    ws = tmp / "ws"
    ws.mkdir(exist_ok=True)
    half = len(shots) // 2
    for i, data in enumerate(shots[half:]):
        (ws / f"shot_{i}.png").write_bytes(data)
    outcome = SessionOutcome()
    with FakeProviderServer() as srv:
        for i in range(half):
            srv.script(Turn(parts=(ToolCall("fs_read", {"path": f"shot_{i}.png"}),)), Turn(parts=(Text(f"seen {i}"),)))
        srv.script(Turn(parts=(ToolCall("fs_read", {"path": "shot_0.png"}),)), Turn(parts=(Text("again"),)))

        async def main() -> None:
            provider = provider_for(provider_name, srv)
            ledger = Ledger(tmp / "ledger.db", clock=ManualClock().now)
            kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws), provider=provider_name),
                                  providers=lambda _n: provider)
            try:
                agent = kernel.agents.spawn("shots", provider=provider_name, model=model or MODELS[provider_name],
                                            budget=10_000_000)
                kernel.leases.grant(agent.id, "fs.read", 3600.0)
                for i in range(half):
                    pasted = await kernel.agents.attach_image(agent.id, base64.b64encode(shots[i]).decode(), "paste")
                    kernel.agents.send(agent.id, f"here is screenshot {i}; now read shot_{i}.png", (pasted,))
                    outcome.states.append(str((await kernel.agents.wait(agent.id)).state))
                kernel.agents.send(agent.id, "read the first one again")
                outcome.states.append(str((await kernel.agents.wait(agent.id)).state))
                outcome.fitted = kernel._services.images.fitted  # the store behind the facade (a figure)
            finally:
                await kernel.aclose()
                await provider.aclose()
                ledger.close()

        asyncio.run(asyncio.wait_for(main(), timeout=600))
        outcome.requests = srv.requests
        outcome.rejections = srv.image_rejections
        srv.assert_done()
    return outcome
