"""What the kernel-process tests share: a client attached to a real kernel process, its events as a queue,
an agent of it caught mid-work, and the ``agentdesk`` command run against that kernel.

Waiting is on events, connection changes and process exits only (no sleeps).
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

from kernel.api import LeaseGranted, LedgerFilter
from kernel.service.client import RemoteKernel
from tests.fakes import ToolCall as FakeCall, Turn

from .conftest import ROOT, KernelProcess, agentdesk


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, timeout=120))


async def next_event(queue: asyncio.Queue, kind: type, where=lambda e: True):
    while True:
        event = await queue.get()
        if isinstance(event, kind) and where(event):
            return event


async def attach(home, answers_leases=False) -> tuple[RemoteKernel, asyncio.Queue]:
    k = await RemoteKernel.for_home(home, client="test", answers_leases=answers_leases).start()
    events: asyncio.Queue = asyncio.Queue()
    k.subscribe(events.put_nowait)
    return k, events


class Recorder:
    """A subscriber that keeps every event it gets, in order, and sets ``done`` at the grant of a lease for
    ``scope`` (the live event a test makes last, after whatever it wants to see delivered)."""

    def __init__(self, scope: str) -> None:
        self.scope = scope
        self.seen: list[Any] = []
        self.done = asyncio.Event()

    def __call__(self, event: Any) -> None:
        self.seen.append(event)
        if isinstance(event, LeaseGranted) and event.lease.scope == self.scope:
            self.done.set()


async def working_agent(kernel_proc: KernelProcess, ws: Path, prompt: str, until: type, *, name: str = "stopped",
                        scope: str | None = None) -> tuple[RemoteKernel, asyncio.Queue, asyncio.Queue, Any]:
    """An attached client (its connection changes queued) and an agent of it, given ``scope`` for an hour when
    named, sent ``prompt`` and working: ``until`` seen."""
    k, events = await attach(kernel_proc.home)
    connection: asyncio.Queue = asyncio.Queue()
    k.on_connection(connection.put_nowait)
    agent = k.spawn(name, workspace=str(ws))
    if scope is not None:
        k.grant_lease(agent.id, scope, 3600)
    k.send(agent.id, prompt)
    await next_event(events, until)
    return k, events, connection, agent


async def killed_and_back(kernel_proc: KernelProcess, connection: asyncio.Queue) -> None:
    """kill -9 the kernel, see the client notice, start it again and see the client come back on its own."""
    kernel_proc.kill9()
    assert await connection.get() is False
    kernel_proc.start()
    assert await connection.get() is True


SLOW_ONCE = "sleep 60; echo ran >> once.txt"  # a command still running when the kernel stops; run twice, it shows


def script_slow_once(srv) -> None:
    """The model's one reply: run ``SLOW_ONCE``."""
    srv.script(Turn(parts=(FakeCall("shell_exec", {"command": SLOW_ONCE}),)))


def calls_of(k: RemoteKernel, agent_id: str) -> list[Any]:
    """The agent's tool calls and their results and errors on the record."""
    return [e for e in k.ledger_page(LedgerFilter(actor=agent_id)) if e.kind in ("tool", "error", "result")]


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``agentdesk ARGS`` against the kernel of ``env``'s home, its output as text."""
    return subprocess.run(agentdesk(*args), env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def open_desktop(home: Path, qtbot: Any, timeout_ms: int = 60_000) -> Any:
    """The desktop attached to the kernel of ``home``, as ``agentdesk`` opens it (``attach_desktop``), shown."""
    from desktop.app import attach_desktop

    attaching = asyncio.ensure_future(attach_desktop(home, grant_delay_ms=0))
    qtbot.waitUntil(attaching.done, timeout=timeout_ms)
    desk = attaching.result()
    qtbot.addWidget(desk.window)
    desk.window.show()
    return desk


def quit_desktop(desk: Any, qtbot: Any, timeout_ms: int = 60_000) -> None:
    """Quit the desktop as its Quit does once agreed (its agents keep running in the kernel); wait until closed."""
    if not desk.window.isVisible() and desk.window.windows == {}:
        return
    with qtbot.waitSignal(desk.window.closed, timeout=timeout_ms):
        desk.window.shut_down()


def texts(conversation) -> str:
    return " ".join(getattr(part, "text", "") for message in conversation for part in message.parts)
