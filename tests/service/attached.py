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


WAIT_MS = 30_000  # the longest a test waits on a kernel process (another process, on a machine other workers share)


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
    agent = k.agents.spawn(name, workspace=str(ws))
    if scope is not None:
        k.leases.grant(agent.id, scope, 3600)
    k.agents.send(agent.id, prompt)
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
    return [e for e in k.ledger.page(LedgerFilter(actor=agent_id)) if e.kind in ("tool", "error", "result")]


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
    desk.window.show()
    return desk


def quit_desktop(desk: Any, qtbot: Any, timeout_ms: int = 60_000) -> None:
    """Quit the desktop as its Quit does once agreed (attached, its agents keep running in the kernel; in
    process, the kernel stops), and return when its main window has closed (at once when it had), with every
    dialog it parented (a Settings dialog left open must not meet the next test)."""
    import shiboken6
    from PySide6.QtWidgets import QDialog

    window = desk.window
    if shiboken6.isValid(window) and window.isVisible():
        window.shut_down()
        qtbot.waitUntil(lambda: not shiboken6.isValid(window) or not window.isVisible(), timeout=timeout_ms)
    if shiboken6.isValid(window):
        for dialog in window.findChildren(QDialog):
            dialog.close()


def texts(conversation) -> str:
    return " ".join(getattr(part, "text", "") for message in conversation for part in message.parts)


class NotAttachable(AssertionError):
    """A scripted turn the loopback fake server cannot play (a gate held by the test, a request check):
    the test is about the in-process kernel's internals; mark it ``in_process``."""


def as_turn(turn: Any) -> tuple[Turn, Any]:
    """A ``kernel.providers.scripted`` turn (``reply(...)``) as the loopback fake server plays it, over the
    real SDK in the kernel process: each text chunk one delta, the same tool calls, usage and stop; and the
    turn's ``Hold`` (None without), which the fake server can hold only right after the first text."""
    from kernel.providers.base import StreamEnd, TextChunk, ToolCallReady, UsageReport
    from kernel.providers.scripted import Hold
    from tests.fakes import Text, Usage

    if getattr(turn, "check", None) is not None:
        raise NotAttachable("a request check runs in the test's process only")
    parts: list[Any] = []
    texts_before_hold = 0
    hold = None
    usage_in = usage_out = 0
    stop = "auto"
    for event in turn.events:
        match event:
            case TextChunk(text=text):
                parts.append(Text(text, chunks=1))
                texts_before_hold += hold is None
            case Hold() if hold is None and texts_before_hold == 1:
                hold = event
            case ToolCallReady(name=name, input=tool_input):
                parts.append(FakeCall(name, dict(tool_input or {})))
            case UsageReport(input_tokens=i, output_tokens=o):
                usage_in, usage_out = i if i is not None else usage_in, o if o is not None else usage_out
            case StreamEnd(stop_reason=reason):
                stop = reason if reason in ("end_turn", "tool_use", "max_tokens") else "auto"
            case _:
                raise NotAttachable(f"the fake server cannot play {type(event).__name__} there")
    return Turn(parts=tuple(parts), usage=Usage(usage_in, usage_out), stop=stop), hold


class ServerScript:
    """What a test scripts for an agent, played by the kernel's loopback fake server (one queue for every
    agent of the kernel: a test scripts each agent just before it works, as it does in process). A held
    turn holds the server after its first text until the test sets the hold's gate; its ``reached`` is set
    when that text has come to the desktop."""

    def __init__(self, srv: Any, kernel: Any) -> None:
        self.srv = srv
        self._reached: Any = None
        kernel.subscribe(self._on_event)

    def script(self, *turns: Any) -> "ServerScript":
        played = [as_turn(t) for t in turns]
        holds = [hold for _turn, hold in played if hold is not None]
        if holds:
            if len(holds) > 1 or played[0][1] is None:
                raise NotAttachable("the fake server holds only the first reply of a script")
            self._hold(holds[0])
        self.srv.script(*(turn for turn, _hold in played))
        return self

    def _hold(self, hold: Any) -> None:
        import threading

        release = threading.Event()
        self.srv.hold_after_first_text(release, timeout=60)
        task = asyncio.ensure_future(hold.gate.wait())
        task.add_done_callback(lambda _t: release.set())
        self._reached = hold.reached

    def _on_event(self, event: Any) -> None:
        from kernel.api import TextDelta

        if isinstance(event, TextDelta) and self._reached is not None:
            self._reached.set()  # the text before the hold is here; the server holds the rest
            self._reached = None

    @property
    def requests(self) -> list[Any]:
        return self.srv.requests

    def assert_done(self) -> None:
        """Every scripted reply was asked for, and nothing else."""
        self.srv.assert_done()


class AttachedKernel:
    """A real ``agentdesk kernel`` process over ``home`` with the Anthropic SDK pointed at a loopback fake
    server, settings written first (the test's user name and workspace). One per test: each test gets a home
    of its own (pytest's tmp folders are per xdist worker, and so is the socket, named by its home)."""

    def __init__(self, home: Path, settings: Any, openai_too: bool = False) -> None:
        from kernel.config.settings import SettingsStore
        from tests.fakes import FakeProviderServer

        from .conftest import KernelProcess, clean_env

        SettingsStore(home).save(settings)
        self.home = home
        self.srv = FakeProviderServer().start()
        extra = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": self.srv.anthropic_base_url,
                 "AGENTDESK_KEYRING": "off"}
        if openai_too:  # a second vendor (model routes): OpenAI's protocols on the same fake server
            extra |= {"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": self.srv.openai_base_url}
        env = clean_env(home, extra)
        try:
            self.proc = KernelProcess(home, env).start()
        except BaseException:
            self.srv.close()
            raise

    def close(self) -> None:
        try:
            self.proc.stop()
        finally:
            self.srv.close()
