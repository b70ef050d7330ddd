"""The whole desktop on a real kernel: qasync loop, real ledger, manual clock, scripted providers.

The qasync loop is created "already running" on the test's QApplication, so
kernel coroutines run whenever Qt processes events, which is what
``qtbot.waitUntil`` and ``qtbot.waitSignal`` do. Nothing sleeps on time: the
kernel clock is a ``ManualClock`` and every wait is for observable state.
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
from kernel.leases.approver import Grant
from kernel.core.clock import ManualClock
from kernel.core.events import Event, LeaseRequested
from kernel.providers.scripted import ScriptedProvider, reply
from kernel.config.settings import Settings


@dataclass
class Main:
    desk: Desktop
    clock: ManualClock
    workspace: Path
    qtbot: object
    providers: dict[str, ScriptedProvider] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)

    @property
    def kernel(self):
        return self.desk.kernel

    @property
    def ledger(self):
        return self.desk.ledger

    @property
    def window(self):
        return self.desk.window

    def spawn(self, name: str, budget: int | None = None) -> str:
        provider = f"scripted-{name}"
        self.providers.setdefault(provider, ScriptedProvider())
        agent_id = self.kernel.agents.spawn(name, provider=provider, model="test-model", budget=budget).id
        self.settle()
        return agent_id

    def settle(self) -> None:
        """Wait until the views have shown every event so far (they batch updates per frame)."""
        window = self.window
        self.until(lambda: not window.processes.pending and not window.ledger_view.model.pending and
                   not any(w.transcript.pending for w in window.windows.values() if hasattr(w, "transcript")))

    def provider(self, agent_id: str) -> ScriptedProvider:
        return self.providers[self.kernel.agents.get(agent_id).provider]

    def until(self, predicate, timeout: int = 5000) -> None:
        self.qtbot.waitUntil(lambda: bool(predicate()), timeout=timeout)  # type: ignore[attr-defined]

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
        self.settle()


@pytest.fixture
def main(tmp_path: Path, qloop: qasync.QEventLoop, qtbot) -> Iterator[Main]:
    ws = tmp_path / "ws"
    ws.mkdir()
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
    closing = asyncio.ensure_future(desk.kernel.aclose())
    qtbot.waitUntil(closing.done, timeout=5000)
    desk.window._done = True  # the kernel is closed: let qtbot close the window without asking
    desk.bridge.close()
    for dialog in list(desk.lease_dialogs.open.values()):
        dialog.withdraw()
    for window in list(desk.window.windows.values()):
        window.close()
    automations = desk.window.automations_window  # a top-level window: deleted here, not by a later GC
    if automations is not None and shiboken6.isValid(automations):
        automations.close()
        automations.deleteLater()
        qtbot.waitUntil(lambda: not shiboken6.isValid(automations), timeout=5000)
    desk.ledger.close()
