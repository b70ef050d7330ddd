"""A real kernel on a plain asyncio loop: real ledger, real tools, a manual clock,
a strict scripted provider and a scripted approver."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from kernel.leases.approver import Approver, Decision, Denial, Grant, LeaseRequest
from kernel.core.clock import ManualClock
from kernel.core.events import Event
from kernel.facade import Kernel
from kernel.compose import build_kernel
from kernel.providers.scripted import ScriptedProvider
from kernel.config.settings import Settings
from ledger import Ledger

HANG = "hang"


class ScriptedApprover:
    """Answers lease requests from a script; HANG leaves a request open until the test acts."""

    def __init__(self) -> None:
        self.answers: list[Decision | str] = []
        self.requests: list[LeaseRequest] = []
        self.cancelled: list[int] = []

    def will(self, *answers: Decision | str) -> "ScriptedApprover":
        self.answers.extend(answers)
        return self

    async def decide(self, request: LeaseRequest) -> Decision:
        self.requests.append(request)
        if not self.answers:
            raise AssertionError(f"unexpected lease request for {request.scope}")
        answer = self.answers.pop(0)
        if answer == HANG:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled.append(request.id)
                raise
        assert not isinstance(answer, str)
        return answer


@dataclass
class Env:
    kernel: Kernel
    provider: ScriptedProvider
    approver: ScriptedApprover
    clock: ManualClock
    ledger: Ledger
    workspace: Path
    events: list[Event] = field(default_factory=list)

    def of(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]


@pytest.fixture
def make_env(tmp_path: Path) -> Callable[..., Env]:
    made: list[Env] = []

    def make(tools=None, approver: Approver | None = None, **settings_changes) -> Env:
        """A kernel over a fresh ledger; it asks ``approver`` (default: a ``ScriptedApprover``)."""
        ws = tmp_path / "ws"
        ws.mkdir(exist_ok=True)
        clock = ManualClock()
        ledger = Ledger(tmp_path / "ledger.db", clock=clock.now)
        provider = ScriptedProvider()
        scripted = ScriptedApprover()
        settings = Settings(user_name="Ada", workspace=str(ws), **settings_changes)
        kernel = build_kernel(ledger=ledger, settings=settings, providers=lambda _name: provider, clock=clock,
                        approver=approver or scripted, tools=tools)
        env = Env(kernel, provider, scripted, clock, ledger, ws.resolve())
        kernel.subscribe(env.events.append)
        made.append(env)
        return env

    yield make
    for env in made:
        env.ledger.close()


def run(coro):
    """Run a test coroutine on a fresh plain asyncio loop. The deadline only stops a hang: it is not a
    measurement. A provider host child imports its SDK (google-genai, ~3 s of CPU), and with pytest-xdist's
    workers sharing two cores such a test took 29.5 s of a 30 s deadline in a clean CI run."""
    return asyncio.run(asyncio.wait_for(coro, timeout=120))


async def until(predicate: Callable[[], bool], spins: int = 10_000) -> None:
    """Yield to the loop until ``predicate`` holds (no sleeping on time)."""
    for _ in range(spins):
        if predicate():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition never became true")


GRANT_5M = Grant(300.0)
DENY = Denial()
