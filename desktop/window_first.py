"""The window first (issue 28): the main window is shown before the desktop has a kernel.

``agentdesk`` used to start or attach to the home's kernel service and only
then build its windows: the main window was mapped 1.24–1.71 s after start
on Xvfb + openbox (0.33–0.56 s before attaching existed). Now the windows
are built over a ``DeferredKernel`` and shown at once; ``Starter`` starts or
attaches to the kernel in the background and fills them in when it answers.

Until then the window is honest about it: the process table and the ledger
view are empty, the status line says "connecting to the kernel…", and every
read the views make is answered from nothing (no agents, no entries, the
ledger's check not in yet). Anything that would change something is refused
with ``KernelError`` ("connecting to the kernel…"), except "+ New Ask": it
opens a ``PendingAskWindow`` whose text is sent, exactly once, to a new
agent when the kernel answers (``Starter.asks``). The desks' methods are
looked up at call time, so the callables views keep from their construction
(the ledger view's pager, the status line's spend) reach the kernel once it
answers.

Measured by ``benchmarks/start_bench.py`` on this shared 2-core machine (2026-12-03, medians of 5,
Xvfb + openbox): with no kernel running the window was mapped after 3.4 s at load 17 (``import anthropic``
28 s in the same run), against 4.4 s before this change at load 15 (``import anthropic`` 12 s); the
desktop's own CPU time when mapped fell from 1.02 s to 0.69 s (no kernel running) and stayed 0.78 s
(kernel running) — the wall figures follow the load, the CPU figures much less.

Then the window was mapped before anything here is imported: ``run`` shows ``MainWindow.first_frame()`` and
builds these windows into it (``open_window_first(window=...)``) before the event loop first runs. The
desktop's CPU time when mapped fell from 0.63 s (no kernel running) / 0.77 s (kernel running) to 0.37 s /
0.36 s, against 0.29 s for a bare PySide6 window (start_bench, medians of 5, load 4-5).
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from kernel.api import Checking, ConfigError, KernelError

if TYPE_CHECKING:
    from .pending_ask import PendingAskWindow

CONNECTING = "connecting to the kernel\u2026"
DESKS = ("agents", "leases", "ledger", "extensions", "outward", "automations", "channels")
# what each read the views make at start says while there is no kernel (anything else: KernelError)
_NOTHING: dict[tuple[str, str], Callable[[], object]] = {
    ("agents", "list"): list, ("leases", "list"): list, ("leases", "pending"): list,
    ("ledger", "page"): list, ("ledger", "count"): int, ("ledger", "last_seq"): int, ("ledger", "undone_by"): dict,
    ("automations", "inbox"): list, ("outward", "unknown"): list,
    ("extensions", "questions"): list,  # MCP servers' questions waiting for the user (issue 29)
    ("channels", "pending"): list,  # chat channels' pairing requests, counted in the Inbox (issue 27)
    ("ledger", "integrity"): lambda: Checking("ledger", time.time()),
    ("automations", "integrity"): lambda: Checking("automation records", time.time()),
}


class _Desk:
    """One desk of the kernel to come: each method is looked up when called, on the kernel once it answers."""

    def __init__(self, owner: "DeferredKernel", name: str) -> None:
        self._owner, self._name = owner, name

    def __getattr__(self, method: str) -> Callable[..., Any]:
        owner, desk = self._owner, self._name

        def call(*args: Any, **kwargs: Any) -> Any:
            if owner.target is not None:
                return getattr(getattr(owner.target, desk), method)(*args, **kwargs)
            nothing = _NOTHING.get((desk, method))
            if nothing is None:
                raise KernelError(CONNECTING)
            return nothing()

        call.__name__ = method
        return call


class DeferredKernel:
    """The facade the windows are built over before the kernel answers: ``remote`` (a ``RemoteKernel`` not yet
    started) takes over, for every call, once ``target`` is set."""

    def __init__(self, remote: Any, settings: Any) -> None:
        self.remote = remote
        self.target: Any = None
        self._settings = settings
        self._desks = {name: _Desk(self, name) for name in DESKS}

    def __getattr__(self, name: str) -> Any:
        desks = self.__dict__.get("_desks", {})
        if name in desks:
            return desks[name]
        if self.target is not None or name in ("subscribe", "on_connection", "aclose", "connected"):
            return getattr(self.remote, name)  # (subscribing works before the connection starts)
        raise KernelError(CONNECTING)

    @property
    def settings(self) -> Any:
        return self.target.settings if self.target is not None else self._settings

    def now(self) -> float:
        return time.time()  # the kernel's clock is the system clock, attached or not

    async def sandbox_mode(self, workspace: str | None = None) -> Any:
        if self.target is None:
            raise KernelError(CONNECTING)
        return await self.target.sandbox_mode(workspace)


class Starter:
    """Starts or attaches to the kernel in the background (``attach``), then fills the desktop in and sends the
    asks typed meanwhile, each exactly once."""

    def __init__(self, desk: Any, kernel: DeferredKernel, attach: Callable[[], Awaitable[None]],
                 on_attached: Callable[[], None] = lambda: None) -> None:
        self.desk, self.kernel, self._attach = desk, kernel, attach
        self._on_attached = on_attached
        self.asks: list[tuple[str, PendingAskWindow]] = []  # sent before the kernel answered, not yet delivered
        self.pending_windows: list[PendingAskWindow] = []
        self.failed: str | None = None
        self.task: asyncio.Future[None] | None = None
        window = desk.window
        window.status.counts.connecting = True
        window.status.refresh()
        window.new_action.triggered.disconnect(window.new_ask)
        window.new_action.triggered.connect(self.new_ask)

    @property
    def attached(self) -> bool:
        return self.kernel.target is not None

    def begin(self) -> asyncio.Future[None]:
        self.task = asyncio.ensure_future(self._run())
        return self.task

    def new_ask(self) -> object:
        """"+ New Ask": the real thing once attached; before, a message box whose text waits for the kernel."""
        if self.attached:
            return self.desk.window.new_ask()
        from .pending_ask import PendingAskWindow

        pending = PendingAskWindow()
        pending.submitted.connect(lambda text, w=pending: self._submitted(text, w))
        self.pending_windows.append(pending)
        pending.show()
        pending.raise_()
        pending.activateWindow()
        pending.input.setFocus()
        return pending

    def _submitted(self, text: str, pending: PendingAskWindow) -> None:
        self.asks.append((text, pending))
        if self.attached:  # sent after the kernel answered: now
            self._deliver()

    async def _run(self) -> None:
        try:
            await self._attach()
        except (KernelError, OSError) as exc:
            self._could_not_attach(str(exc))
            return
        self.kernel.target = self.kernel.remote
        self._fill_in()
        self._deliver()
        self._on_attached()

    def _could_not_attach(self, why: str) -> None:
        self.failed = why
        print(f"agentdesk: could not reach the kernel service: {why}", file=sys.stderr)
        window = self.desk.window
        window.status.counts.connecting = False
        window.status.counts.attached = False
        window.status.refresh()
        window.statusBar().showMessage(f"Could not reach the kernel service: {why}")
        for _text, pending in self.asks:
            pending.failed(f"could not reach the kernel service: {why}")
        self.asks.clear()

    def _fill_in(self) -> None:
        """What the kernel says now: counts, the agents, the ledger's first page, the windows open at the last
        quit, lease requests asked before this desktop attached, the sandbox's mode."""
        window, kernel = self.desk.window, self.kernel
        counts = window.status.counts
        counts.connecting, counts.attached = False, True
        counts.ledger_entries, counts.last_seq = kernel.ledger.count(), kernel.ledger.last_seq()
        counts.ledger_check, counts.automation_check = kernel.ledger.integrity(), kernel.automations.integrity()
        window.reattach()  # the process table and the status line, reloaded
        window.ledger_view.apply_filters()
        window.reopen_windows()
        dialogs = self.desk.lease_dialogs
        if dialogs is not None:
            for request in kernel.leases.pending():
                if request.id not in dialogs.open:
                    dialogs.show(request)
        window.probe_sandbox_mode()

    def _deliver(self) -> None:
        """Each ask typed while attaching becomes a new agent with that message, once: it leaves the queue
        before the kernel is asked, so a failure cannot send it twice (its window says why and keeps the text)."""
        while self.asks:
            text, pending = self.asks.pop(0)
            try:
                info = self.kernel.agents.spawn()
                self.kernel.agents.send(info.id, text)
            except (ConfigError, KernelError) as exc:
                pending.failed(str(exc))
                continue
            self.desk.window.window_for(info.id)
            pending.close()
