"""A real kernel under Qt: qasync loop, real ledger, manual clock, scripted providers.

The qasync loop is created "already running" on the test's QApplication, so
kernel coroutines run whenever Qt processes events, which is exactly what
``qtbot.waitUntil`` and ``qtbot.waitSignal`` do. Nothing sleeps on time: the
kernel clock is a ``ManualClock`` and every wait is for observable state.
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
from kernel.facade import Kernel
from kernel.compose import build_kernel
from kernel.providers.scripted import ScriptedProvider
from kernel.config.settings import Settings, SettingsStore, home
from ledger import Ledger


@dataclass
class Desk:
    kernel: Kernel
    bridge: EventBridge
    dialogs: LeaseDialogs
    clock: ManualClock
    ledger: Ledger
    workspace: Path
    qtbot: object
    windows: dict[str, AskWindow] = field(default_factory=dict)
    providers: dict[str, ScriptedProvider] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    settings_opened: int = 0

    def open(self, name: str = "scribe", budget: int | None = None, provider: str | None = None) -> AskWindow:
        """Spawn an agent with its own scripted provider and open its Ask window."""
        provider = provider or f"scripted-{name}"
        self.providers.setdefault(provider, ScriptedProvider())
        info = self.kernel.agents.spawn(name, provider=provider, model="test-model", budget=budget)
        window = AskWindow(self.kernel, info.id, self.bridge, self._open_settings)
        self.qtbot.addWidget(window)  # type: ignore[attr-defined]
        self.windows[info.id] = window
        window.show()
        return window

    def provider_of(self, window: AskWindow) -> ScriptedProvider:
        return self.providers[window.info.provider]

    def _open_settings(self) -> None:
        self.settings_opened += 1

    def of(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]


@pytest.fixture
def desk(tmp_path: Path, qloop: qasync.QEventLoop, qtbot) -> Iterator[Desk]:
    ws = tmp_path / "ws"
    ws.mkdir()
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
    ledger.close()
