"""Ask windows and lease dialogs over a real kernel, attached to it as ``agentdesk`` is by default.

By default ``desk`` is a ``RemoteKernel`` attached to a kernel process of the
test's own home (its Anthropic SDK against a loopback fake server that plays
the test's ``reply(...)`` scripts: ``tests.service.attached``), with the event
bridge and the lease dialogs the desktop builds over it. A test marked
``@pytest.mark.in_process`` gets an in-process ``Kernel`` instead, with a
``ManualClock`` and scripted providers: for what only that mode has (the test
moving the kernel's clock, a gate held mid-stream, the ledger read directly).

The qasync loop is created "already running" on the test's QApplication, so
kernel coroutines run whenever Qt processes events, which is exactly what
``qtbot.waitUntil`` and ``qtbot.waitSignal`` do. Nothing sleeps on time: every
wait is for observable state.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest
import qasync
from PySide6.QtWidgets import QWidget

from desktop.ask_window import AskWindow
from desktop.bridge import EventBridge
from desktop.lease_dialog import LeaseDialogs
from kernel.providers.lazy import missing_key_message
from kernel.core.clock import ManualClock
from kernel.core.events import Event
from kernel.compose import build_kernel
from kernel.facade import Kernel
from kernel.service.client import RemoteKernel
from kernel.providers.scripted import ScriptedProvider
from kernel.config.settings import Settings, SettingsStore, home
from ledger import Ledger
from tests.service.attached import WAIT_MS, AttachedKernel, ServerScript


IN_PROCESS = "in_process"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{IN_PROCESS}: the desktop over an in-process kernel, not attached to a "
                                       "kernel process")


@dataclass
class Desk:
    kernel: Kernel | RemoteKernel
    bridge: EventBridge
    dialogs: LeaseDialogs
    clock: ManualClock | None  # None when attached: the kernel process keeps the system's time
    ledger: Ledger | None  # None when attached: the record is the kernel's
    workspace: Path
    qtbot: object
    windows: dict[str, AskWindow] = field(default_factory=dict)
    providers: dict[str, ScriptedProvider] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    settings_opened: int = 0
    server: ServerScript | None = None  # attached: the kernel's loopback provider, which plays every script

    def open(self, name: str = "scribe", budget: int | None = None, provider: str | None = None) -> AskWindow:
        """Spawn an agent with its own scripted provider and open its Ask window."""
        if self.server is None:
            provider = provider or f"scripted-{name}"
            self.providers.setdefault(provider, ScriptedProvider())
        info = self.kernel.agents.spawn(name, provider=provider, model="test-model", budget=budget)
        window = AskWindow(self.kernel, info.id, self.bridge, self.open_settings)
        self.qtbot.addWidget(window)  # type: ignore[attr-defined]
        self.windows[info.id] = window
        window.show()
        return window

    def until_state(self, window: AskWindow, state: str) -> None:
        """Wait until the kernel says the window's agent is ``state`` and the window has heard and drawn all that
        came before (attached, over the socket: the kernel's word is the one to wait on, the window's follows)."""
        wait = WAIT_MS if self.server is not None else 5000
        self.qtbot.waitUntil(lambda: self.kernel.agents.get(window.agent_id).state == state,  # type: ignore[attr-defined]
                             timeout=wait)
        if isinstance(self.kernel, RemoteKernel):
            caught = asyncio.ensure_future(self.kernel.caught_up())
            self.qtbot.waitUntil(caught.done, timeout=wait)  # type: ignore[attr-defined]
            caught.result()
        self.qtbot.waitUntil(lambda: window.info.state == state and not window.transcript.pending,  # type: ignore[attr-defined]
                             timeout=wait)

    def provider_of(self, window: AskWindow) -> ScriptedProvider | ServerScript:
        if self.server is not None:
            return self.server
        return self.providers[window.info.provider]

    def open_settings(self) -> None:
        self.settings_opened += 1

    def of(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]


@pytest.fixture
def desk(request: pytest.FixtureRequest, tmp_path: Path, qloop: qasync.QEventLoop, qtbot) -> Iterator[Desk]:
    ws = tmp_path / "ws"
    ws.mkdir()
    if request.node.get_closest_marker(IN_PROCESS) is None:
        yield from _attached_desk(tmp_path, ws, qtbot)
        return
    clock = ManualClock()
    ledger = Ledger(tmp_path / "ledger.db", clock=clock.now)
    providers: dict[str, ScriptedProvider] = {}
    settings = Settings(user_name="Ada", workspace=str(ws))
    store = SettingsStore(home())  # what build_desktop checks keys with
    kernel = build_kernel(ledger=ledger, settings=settings, providers=lambda name: providers[name], clock=clock,
                    attached=True, provider_problem=lambda name: missing_key_message(name, store))
    bridge = EventBridge(kernel)
    windows: dict[str, AskWindow] = {}

    def window_for(agent_id: str, activate: bool = False) -> QWidget | None:
        return windows.get(agent_id)

    dialogs = LeaseDialogs(kernel, bridge, window_for, grant_delay_ms=0)  # the delay has its own tests
    d = Desk(kernel, bridge, dialogs, clock, ledger, ws.resolve(), qtbot, windows, providers)
    kernel.subscribe(d.events.append)
    yield d
    closing = asyncio.ensure_future(kernel.aclose())
    qtbot.waitUntil(closing.done, timeout=5000)
    bridge.close()
    for dialog in list(dialogs.open.values()):
        dialog.withdraw()
    dialogs.close()
    ledger.close()


def _attached_desk(tmp_path: Path, ws: Path, qtbot) -> Iterator[Desk]:
    """``desk`` over a kernel process of its own home: the client, bridge and lease dialogs the desktop makes."""
    kernel_proc = AttachedKernel(tmp_path / "home", Settings(user_name="Ada", workspace=str(ws)))
    try:
        starting = asyncio.ensure_future(
            RemoteKernel.for_home(kernel_proc.home, client="desktop", answers_leases=True).start())
        qtbot.waitUntil(starting.done, timeout=WAIT_MS)
        kernel = starting.result()
        bridge = EventBridge(kernel)
        windows: dict[str, AskWindow] = {}
        dialogs = LeaseDialogs(kernel, bridge, lambda agent_id, _activate=False: windows.get(agent_id),
                               grant_delay_ms=0)  # the delay has its own tests
        d = Desk(kernel, bridge, dialogs, None, None, ws.resolve(), qtbot, windows,
                 server=ServerScript(kernel_proc.srv, kernel))
        kernel.subscribe(d.events.append)
        try:
            yield d
        finally:
            for dialog in list(dialogs.open.values()):
                dialog.withdraw()
            dialogs.close()
            for window in list(windows.values()):
                window.close()
            bridge.close()
            closing = asyncio.ensure_future(kernel.aclose())
            qtbot.waitUntil(closing.done, timeout=WAIT_MS)
    finally:
        kernel_proc.close()
