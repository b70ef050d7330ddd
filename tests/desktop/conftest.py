"""The whole desktop as users run it: attached to a real kernel process (``agentdesk kernel``).

By default ``main`` is ``attach_desktop`` over a kernel process of the test's
own home, whose Anthropic SDK talks to a loopback fake server; a test scripts
each agent's replies with ``kernel.providers.scripted.reply`` as before, and
the fake server plays them (``tests.service.attached.as_turn``). Tests about
the in-process mode, or that need what only it has (a ``ManualClock`` moved
by the test, a gate held mid-stream, the ledger written directly), are marked
``@pytest.mark.in_process``: then ``main`` is ``build_desktop`` with scripted
providers and a manual clock, on the test's loop.

The qasync loop is created "already running" on the test's QApplication, so
kernel coroutines run whenever Qt processes events, which is what
``qtbot.waitUntil`` and ``qtbot.waitSignal`` do. Nothing sleeps on time: every
wait is for observable state.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest
import shiboken6
import qasync

from desktop.app import Desktop, build_desktop
from kernel.api import AgentState, LedgerFilter
from tests.extensions.everything import everything  # noqa: F401 - the reference MCP server, per module
from kernel.leases.approver import Grant
from kernel.core.clock import ManualClock
from kernel.core.events import Event, LeaseRequested
from kernel.providers.scripted import ScriptedProvider, reply
from kernel.config.settings import Settings
from tests.service.attached import WAIT_MS, AttachedKernel, ServerScript, open_desktop, quit_desktop


IN_PROCESS = "in_process"
OPENAI_TOO = "openai_too"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{IN_PROCESS}: the desktop over an in-process kernel (build_desktop), "
                                       "not attached to a kernel process")
    config.addinivalue_line("markers", f"{OPENAI_TOO}: the attached kernel has OpenAI configured too, on the "
                                       "same loopback fake server (a second vendor, for model routes)")


@dataclass
class Main:
    desk: Desktop
    clock: ManualClock | None  # None when attached: the kernel process keeps the system's time
    workspace: Path
    qtbot: object
    providers: dict[str, ScriptedProvider] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    server: ServerScript | None = None  # attached: the kernel's loopback provider, which plays every script

    @property
    def kernel(self):
        return self.desk.kernel

    @property
    def ledger(self):
        return self.desk.ledger

    @property
    def window(self):
        return self.desk.window

    @property
    def attached(self) -> bool:
        return self.server is not None

    def spawn(self, name: str, budget: int | None = None) -> str:
        if self.server is not None:
            # the settings' provider (the loopback fake), and a model without a price, as in process
            agent_id = self.kernel.agents.spawn(name, model="test-model", budget=budget).id
        else:
            provider = f"scripted-{name}"
            self.providers.setdefault(provider, ScriptedProvider())
            agent_id = self.kernel.agents.spawn(name, provider=provider, model="test-model", budget=budget).id
        self.settle()
        return agent_id

    def settle(self) -> None:
        """Wait until the views have shown every event so far (they batch updates per frame)."""
        self.until(self._drawn)

    def _drawn(self) -> bool:
        window = self.window
        return not window.processes.pending and not window.ledger_view.model.pending and \
            not any(w.transcript.pending for w in window.windows.values() if hasattr(w, "transcript"))

    def scripted(self, provider: str) -> tuple[str, ScriptedProvider | ServerScript]:
        """A provider for an agent the kernel starts itself (an automation run), and its name: in process a
        scripted one named ``provider``; attached the kernel's own, which the loopback fake server answers."""
        if self.server is not None:
            return self.kernel.settings.provider, self.server
        return provider, self.providers.setdefault(provider, ScriptedProvider())

    @property
    def record(self) -> "Record":
        """The ledger as the desktop reads it: through the kernel's facade, attached or in process."""
        return Record(self.kernel)

    def provider(self, agent_id: str) -> ScriptedProvider | ServerScript:
        if self.server is not None:
            return self.server
        return self.providers[self.kernel.agents.get(agent_id).provider]

    def until(self, predicate, timeout: int | None = None) -> None:
        wait = timeout if timeout is not None else WAIT_MS if self.attached else 5000
        self.qtbot.waitUntil(lambda: bool(predicate()), timeout=wait)  # type: ignore[attr-defined]
        if self.attached and self.kernel.connected:  # what the kernel says now, the desktop has heard and drawn too
            caught = asyncio.ensure_future(self.kernel.caught_up())
            self.qtbot.waitUntil(caught.done, timeout=wait)  # type: ignore[attr-defined]
            caught.result()
            self.qtbot.waitUntil(self._drawn, timeout=wait)  # type: ignore[attr-defined]

    def requests(self) -> list:
        return [e.request for e in self.events if isinstance(e, LeaseRequested)]

    def write(self, agent_id: str, path: str, content: str, *, grant: float | None = 300.0) -> None:
        """Have the agent write a file through fs_write (granting the lease when asked) and go idle."""
        had_lease = any(l.scope == "fs.write" for l in self.kernel.leases.list(agent_id))
        asked = len(self.requests())
        self.provider(agent_id).script(reply(tools=(("fs_write", {"path": path, "content": content}),)),
                                       reply("done"))
        self.kernel.agents.send(agent_id, f"write {path}")
        if not had_lease and grant is not None:
            self.until(lambda: len(self.requests()) > asked)
            self.kernel.leases.resolve(self.requests()[-1].id, Grant(grant))
        self.until(lambda: self.kernel.agents.get(agent_id).state == "idle")
        self.until(lambda: self.window.rows.agents[self.window.rows.row_of(agent_id)].state is AgentState.IDLE)
        self.settle()


@dataclass(frozen=True)
class Record:
    """What tests ask of the ledger, asked of the facade (the record is the kernel's when attached)."""

    kernel: object

    def count(self) -> int:
        return self.kernel.ledger.count()  # type: ignore[attr-defined]

    def last_seq(self) -> int:
        return self.kernel.ledger.last_seq()  # type: ignore[attr-defined]

    def page(self, kind: str | None = None, limit: int = 200) -> list:
        return self.kernel.ledger.page(LedgerFilter(kind=kind), limit=limit)  # type: ignore[attr-defined]

    def get(self, seq: int):
        [entry] = self.kernel.ledger.page(after=seq - 1, before=seq + 1, limit=1)  # type: ignore[attr-defined]
        return entry


@pytest.fixture
def main(request: pytest.FixtureRequest, tmp_path: Path, qloop: qasync.QEventLoop, qtbot) -> Iterator[Main]:
    ws = tmp_path / "ws"
    ws.mkdir()
    if request.node.get_closest_marker(IN_PROCESS) is None:
        yield from _attached_main(tmp_path, ws, qtbot, request.node.get_closest_marker(OPENAI_TOO) is not None)
        return
    clock = ManualClock()
    providers: dict[str, ScriptedProvider] = {}
    settings = Settings(user_name="Ada", workspace=str(ws))
    desk = build_desktop(tmp_path / "home", providers=lambda name: providers[name], clock=clock, settings=settings,
                         grant_delay_ms=0)  # the delay has its own tests
    qtbot.addWidget(desk.window)
    m = Main(desk, clock, ws.resolve(), qtbot, providers)
    desk.kernel.subscribe(m.events.append)
    desk.window.show()
    yield m
    for dialog in list(desk.lease_dialogs.open.values()):
        dialog.withdraw()
    quit_desktop(desk, qtbot)  # the kernel stops, its windows close
    automations = desk.window.automations_window  # a top-level window: deleted here, not by a later GC
    if automations is not None and shiboken6.isValid(automations):
        automations.close()
        automations.deleteLater()
        qtbot.waitUntil(lambda: not shiboken6.isValid(automations), timeout=5000)
    desk.ledger.close()


def _attached_main(tmp_path: Path, ws: Path, qtbot, openai_too: bool = False) -> Iterator[Main]:
    """``main`` attached to a kernel process of its own home, as ``agentdesk`` starts."""
    kernel = AttachedKernel(tmp_path / "home", Settings(user_name="Ada", workspace=str(ws)), openai_too)
    try:
        desk = open_desktop(kernel.home, qtbot)
        m = Main(desk, None, ws.resolve(), qtbot, server=ServerScript(kernel.srv, desk.kernel))
        desk.kernel.subscribe(m.events.append)
        try:
            yield m
        finally:
            for dialog in list(desk.lease_dialogs.open.values()):
                dialog.withdraw()
            automations = desk.window.automations_window
            quit_desktop(desk, qtbot)
            if automations is not None and shiboken6.isValid(automations):
                automations.close()
                automations.deleteLater()
                qtbot.waitUntil(lambda: not shiboken6.isValid(automations), timeout=5000)
    finally:
        kernel.close()
