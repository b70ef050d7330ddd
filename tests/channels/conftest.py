"""One loopback fake per module, on one event loop the module's tests share; a fresh kernel per test."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from kernel.channels.model import ChannelConfig
from kernel.compose import build_kernel
from kernel.config.settings import Settings
from kernel.core.clock import ManualClock
from kernel.core.events import Event
from kernel.facade import Kernel
from kernel.leases.approver import DenyAll
from kernel.providers.scripted import ScriptedProvider
from ledger import Ledger
from tests.fakes.channels_server import ChannelsFake

TOKEN = "123456:TEST-token-for-the-fake"
SLACK_TOKEN = "xapp-1-TEST-app-token xoxb-TEST-bot-token"
WHATSAPP_TOKEN = "EAAG-access-token-TEST app-secret-TEST verify-token-TEST"
DISCORD_TOKEN = "OTk5.TEST-discord.token-value"  # base64("999"): the bot id, as Discord's tokens begin


def token_for(name: str) -> str | None:
    return {"channel:tg": TOKEN, "channel:sl": SLACK_TOKEN, "channel:wa": WHATSAPP_TOKEN, "channel:dc": DISCORD_TOKEN}.get(name)


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)  # what the kernel schedules from a plain call (approve) runs on it too
    yield loop
    asyncio.set_event_loop(None)
    loop.close()


@pytest.fixture(scope="module")
def fake(loop: asyncio.AbstractEventLoop) -> Iterator[ChannelsFake]:
    server = loop.run_until_complete(ChannelsFake().start())
    yield server
    loop.run_until_complete(server.stop())


@dataclass
class Env:
    kernel: Kernel
    provider: ScriptedProvider
    clock: ManualClock
    ledger: Ledger
    fake: ChannelsFake
    loop: asyncio.AbstractEventLoop
    events: list[Event] = field(default_factory=list)

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coro, 120))

    def entries(self, kind: str) -> list[Any]:
        return self.ledger.scan((kind,))


@pytest.fixture
def make_env(tmp_path: Path, fake: ChannelsFake, loop: asyncio.AbstractEventLoop) -> Iterator[Callable[..., Env]]:
    made: list[Env] = []

    def make(approver: Any = None, **settings: Any) -> Env:
        fake.reset()
        ws = tmp_path / "ws"
        ws.mkdir(exist_ok=True)
        clock = ManualClock()
        ledger = Ledger(tmp_path / "ledger.db", clock=clock.now)
        provider = ScriptedProvider()
        kernel = build_kernel(ledger=ledger, settings=Settings(user_name="Ada", workspace=str(ws), **settings),
                              providers=lambda _name: provider, clock=clock, approver=approver or DenyAll(),
                              channel_token=token_for)
        env = Env(kernel, provider, clock, ledger, fake, loop)
        kernel.subscribe(env.events.append)
        made.append(env)
        return env

    yield make
    for env in made:
        loop.run_until_complete(asyncio.wait_for(env.kernel.aclose(), 30))
        env.ledger.close()


class Confirming:
    """The desktop's user, confirming every request it is shown (kept in ``asked``)."""

    def __init__(self) -> None:
        self.asked: list[Any] = []

    async def decide(self, request: Any) -> Any:
        from kernel.leases.approver import Grant

        self.asked.append(request)
        return Grant(60.0)


def telegram(fake: ChannelsFake, name: str = "tg", **changes: Any) -> ChannelConfig:
    return ChannelConfig(name=name, kind="telegram", base_url=fake.url, options={"poll_s": "5"}, **changes)


def ticking(env: Env, seconds: float) -> None:
    """The kernel clock moves ``seconds`` with each piece of a streamed reply (a model writing at that pace)."""
    from kernel.core.events import TextDelta

    env.kernel.subscribe(lambda e: env.clock.advance(seconds) if isinstance(e, TextDelta) else None)


def pictures(env: Env, request: int = 0) -> list[Any]:
    """The pictures in the user turn the model was sent in its ``request``-th request."""
    from kernel.core.messages import ImagePart

    return [p for p in env.provider.requests[request].messages[-1].parts if isinstance(p, ImagePart)]


async def until(predicate: Callable[[], bool], spins: int = 200_000) -> None:
    """Yield to the loop (and the fake's sockets) until ``predicate`` holds; no sleeping on time."""
    for _ in range(spins):
        if predicate():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition never became true")
