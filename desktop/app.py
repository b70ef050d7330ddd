"""Opening the desktop: the kernel, the bridge and the windows on one qasync loop.

``build_desktop`` wires the parts (and is what tests, screenshots and the
benchmark use); ``run`` adds the QApplication, the loop and the wait for the
main window to close. No provider SDK is imported here: providers are built
lazily when an agent first needs one (the kernel's composition root, ``kernel.compose``, hands them over).

A bad settings.json or keys.json never stops the desktop: it starts with the
default in place of each bad value, prints each problem's sentence on stderr
and shows it in a non-modal dialog offering Open Settings or Restore default
(``show_config_problems``).

Attached (the default), the main window is shown before the kernel answers and filled in when it does
(``open_window_first``, ``desktop/window_first.py``; issue 28).

``AGENTDESK_EXIT_WHEN_SHOWN=1`` makes ``run`` print the moment the main
window is first exposed (and which SDKs were loaded by then) and quit: the
start-up benchmark uses it.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, cast

if TYPE_CHECKING:
    from kernel.api import KernelFacade
    from kernel.compose import HomeKernel

    from .main_window import MainWindow

SDK_MODULES = ("anthropic", "openai", "google.genai")


@dataclass
class Desktop:
    """Everything the desktop built, so it can be driven and closed."""

    kernel: "KernelFacade"
    ledger: Any
    bridge: Any
    window: Any
    store: Any
    providers: Any
    lease_dialogs: Any = None
    extras: dict[str, Any] = field(default_factory=dict)
    in_process: "HomeKernel | None" = None  # the kernel in this process (its MCP servers, scheduler), if it is

    @property
    def settings(self) -> Any:
        """The settings in force: the kernel's (Settings → Save replaces them)."""
        return self.kernel.settings


def build_desktop(root: Path, *, providers: Callable[[str], Any] | None = None, clock: Any = None,
                  settings: Any = None, attached: bool = True, watch_workspaces: bool = False,
                  grant_delay_ms: int | None = None, tools: Any = None) -> Desktop:
    """Everything the desktop is made of, over the home folder ``root``. ``watch_workspaces``
    records other programs' edits in every workspace an agent works in (on in the real app);
    ``grant_delay_ms`` is how long a lease dialog's grant buttons ignore input (tests: 0)."""
    from kernel.compose import open_home

    # The kernel, its ledger and its providers, built by the kernel's composition root; hosted SDKs keep
    # their CPU off the Qt loop (out_of_process). ``settings``: defaults stand in for bad values
    # (show_config_problems says which).
    built = open_home(root, out_of_process=True, settings=settings, attached=attached,
                      watch_workspaces=watch_workspaces, clock=clock, providers=providers, tools=tools)
    return _desktop(root, built.kernel, built.ledger, built.store, built.providers, attached=attached,
                    grant_delay_ms=grant_delay_ms, in_process=built)


async def attach_desktop(root: Path, *, grant_delay_ms: int | None = None) -> Desktop:
    """The desktop over the home's kernel service: attach to it, or start one (detached, so it
    outlives the desktop) and attach. Providers and their SDKs live in the kernel's process; the
    status line says attached or detached, and the client reconnects by itself."""
    import asyncio

    from kernel.api import ConfigError
    from kernel import SettingsStore
    from kernel.service import RemoteKernel, ServiceError, ensure_kernel

    try:
        await asyncio.to_thread(ensure_kernel, root)
        kernel = await RemoteKernel.for_home(root, client="desktop", answers_leases=True).start()
    except ServiceError as exc:
        raise ConfigError(f"could not reach the kernel service: {exc}") from exc
    desk = _desktop(root, kernel, None, SettingsStore(root), None, attached=True, grant_delay_ms=grant_delay_ms,
                    kernel_outlives=True)  # quitting asks whether working agents keep running
    kernel.on_connection(lambda up: _show_attached(desk.window, up))
    return desk


def open_window_first(root: Path, *, grant_delay_ms: int | None = None,
                      ensure: Callable[[Path], object] | None = None,
                      window: "MainWindow | None" = None) -> tuple[Desktop, Any]:
    """The desktop over the home's kernel service, built before the kernel answers (``desktop/window_first.py``):
    show ``desk.window``, then ``starter.begin()`` starts or attaches to the kernel (``ensure``: how a kernel is
    made to serve ``root``, in a worker thread; default ``ensure_kernel``) and fills the windows in. ``window``:
    a ``MainWindow.first_frame()`` already shown, built here (``run``: mapped before any of this is imported)."""
    import asyncio

    from kernel import SettingsStore
    from kernel.service import RemoteKernel, ensure_kernel

    from .window_first import DeferredKernel, Starter

    store = SettingsStore(root)
    remote = RemoteKernel.for_home(root, client="desktop", answers_leases=True)
    deferred = DeferredKernel(remote, store.check().settings)  # (a bad value: its default; the dialog says which)
    desk = _desktop(root, cast("KernelFacade", deferred), None, store, None, attached=False,
                    grant_delay_ms=grant_delay_ms, kernel_outlives=True,  # quitting asks whether agents keep running
                    window=window)

    async def attach() -> None:  # a ServiceError (a KernelError) is said in the window (Starter)
        await asyncio.to_thread(ensure or ensure_kernel, root)
        await remote.start()

    def attached() -> None:
        remote.on_connection(lambda up: _show_attached(desk.window, up))
        freeze_startup_objects()  # what start-up built lives as long as the app (after the window: lazy work)

    return desk, Starter(desk, deferred, attach, attached)


def _desktop(root: Path, kernel: "KernelFacade", ledger: Any, store: Any, providers: Any, *, attached: bool,
             grant_delay_ms: int | None, kernel_outlives: bool = False,
             in_process: "HomeKernel | None" = None, window: "MainWindow | None" = None) -> Desktop:
    """The bridge, the main window and the lease dialogs over ``kernel`` (in-process or attached alike), wired
    through the main window's constructor (or its ``build``, into ``window``: a first frame already shown); the
    Ask windows open at the last quit open again (``desktop.json``)."""
    from .bridge import EventBridge
    from .desktop_state import DesktopState
    from .main_window import MainWindow

    bridge = EventBridge(kernel)
    desk = Desktop(kernel, ledger, bridge, None, store, providers, in_process=in_process)
    options: dict[str, Any] = dict(
        now=kernel.now, attached=attached, default_root=str(Path(kernel.settings.workspace).expanduser()),
        make_ask_window=lambda agent_id: _ask_window(desk, agent_id), open_settings=lambda: open_settings(desk),
        bring_up_lease=lambda agent_id: desk.lease_dialogs.bring_up(agent_id) or
        desk.extras["questions"].bring_up(agent_id),  # then a server's question (issue 29)
        state=DesktopState(root), kernel_outlives=kernel_outlives)
    if window is None:
        desk.window = MainWindow(kernel, bridge, **options)
    else:
        window.build(kernel, bridge, **options)
        desk.window = window
    desk.lease_dialogs = _lease_dialogs(kernel, bridge, desk.window, grant_delay_ms)
    desk.extras["questions"] = _question_dialogs(kernel, bridge, desk.window, grant_delay_ms)
    desk.window.reopen_windows()
    return desk


def _show_attached(window: Any, up: bool) -> None:
    window.status.counts.attached = up
    if up:
        window.reattach()  # back after a restart: the agents as the kernel has them now
    else:
        window.detach()  # "kernel detached" where "running" was, and nothing to kill until it is back
    window.status.refresh()


def _lease_dialogs(kernel: Any, bridge: Any, window: Any, grant_delay_ms: int | None) -> Any:
    from .lease_dialog import GRANT_DELAY_MS, LeaseDialogs

    delay = GRANT_DELAY_MS if grant_delay_ms is None else grant_delay_ms
    return LeaseDialogs(kernel, bridge, window.window_for, grant_delay_ms=delay, main_window=lambda: window)


def _question_dialogs(kernel: Any, bridge: Any, window: Any, grant_delay_ms: int | None) -> Any:
    """MCP servers' questions for the user, answered in dialogs the user brings up (question_dialog)."""
    from .question_dialog import GRANT_DELAY_MS, QuestionDialogs

    delay = GRANT_DELAY_MS if grant_delay_ms is None else grant_delay_ms
    return QuestionDialogs(kernel, bridge, window.window_for, main_window=lambda: window, hold_ms=delay)


def _ask_window(desk: Desktop, agent_id: str) -> Any:
    from .ask_window import AskWindow

    return AskWindow(desk.kernel, agent_id, desk.bridge, desk.window.open_settings)


def open_settings(desk: Desktop) -> Any:
    """The Settings dialog, window-modal on the main window (opened, not executed; one at a time)."""
    import shiboken6
    from PySide6.QtCore import Qt

    from .settings_dialog import SettingsDialog

    current = desk.extras.get("settings_dialog")
    if current is not None and shiboken6.isValid(current) and current.isVisible():
        current.raise_()
        current.activateWindow()
        return current
    dialog = SettingsDialog(desk.store, desk.settings, desk.window, mcp_status=desk.kernel.extensions.mcp_status,
                            mcp_reload=desk.kernel.extensions.mcp_reload,  # a saved change applies at once
                            sandbox=desk.window.status.counts.sandbox,
                            skills=desk.kernel,  # Settings → Skills lists what the kernel finds
                            kernel=desk.kernel)  # Settings → Channels asks the kernel
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.saved.connect(lambda new: apply_settings(desk, new))
    desk.extras["settings_dialog"] = dialog
    dialog.open()
    return dialog


def show_config_problems(desk: Desktop) -> Any:
    """The first problem in settings.json or keys.json, in a non-modal dialog (None when all is well)."""
    from .config_problem import ConfigProblemDialog

    problems = desk.store.problems()
    if not problems:
        return None
    dialog = ConfigProblemDialog(problems, lambda p: restore_default(desk, p),
                                 lambda: _settings_then_recheck(desk), desk.window)
    desk.extras["config_problem"] = dialog
    dialog.show()
    return dialog


def restore_default(desk: Desktop, problem: Any) -> Any:
    """Rewrite the one field ``problem`` names, apply the settings as they now read, return what is left."""
    desk.store.restore_default(problem)
    apply_settings(desk, desk.store.check().settings)
    return desk.store.problems()


def _settings_then_recheck(desk: Desktop) -> Any:
    dialog = open_settings(desk)
    dialog.saved.connect(lambda _new: show_config_problems(desk))  # keys.json may still need attention
    return dialog


def apply_settings(desk: Desktop, new: Any) -> None:
    """Saved settings take effect: the kernel uses them for new agents, providers are rebuilt with
    the new keys, base URLs and models when next needed, and Ask windows recheck their provider's key."""
    desk.kernel.update_settings(new)
    for label, value in desk.store.held_secrets():  # a key just saved is kept out of the ledger from now on
        desk.kernel.hold_secret(value, label)
    if hasattr(desk.providers, "forget"):
        desk.providers.forget()
    desk.window.set_default_root(str(Path(new.workspace).expanduser()))
    for window in list(desk.window.windows.values()):
        if hasattr(window, "check_key"):
            window.check_key()


def freeze_startup_objects() -> None:
    """What start-up built (Qt wrappers, imported modules, the kernel) lives as long as the app:
    move it out of the cyclic collector's reach so a full collection does not rescan it mid-stream."""
    gc.collect()
    gc.freeze()


def _use_installed_font(app: Any) -> None:
    """Offscreen Qt without fontconfig defaults may draw boxes: point it at DejaVu when present."""
    from PySide6.QtGui import QFont, QFontDatabase

    if os.environ.get("QT_QPA_PLATFORM") != "offscreen":
        return
    for path in ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                 "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"):
        if os.path.exists(path):
            QFontDatabase.addApplicationFont(path)
    if "DejaVu Sans" in QFontDatabase.families():
        app.setFont(QFont("DejaVu Sans", 10))


def make_app(argv: list[str] | None = None) -> Any:
    from PySide6.QtWidgets import QApplication

    existing = cast("QApplication | None", QApplication.instance())
    app = existing or QApplication(argv if argv is not None else sys.argv)
    if existing is None:  # cyclic garbage is collected on this thread from now on (desktop/main_thread_gc.py)
        from .main_thread_gc import MainThreadCollector

        MainThreadCollector(app)  # its timer is the application's child: it lasts as long as the application
    app.setApplicationName("Agentdesk")
    app.setDesktopFileName("agentdesk")
    _use_installed_font(app)
    from .style import app_icon

    app.setWindowIcon(app_icon())
    return app


def run(argv: list[str] | None = None) -> int:
    """The desktop until its main window closes. Attached (the default), the main window is shown before
    anything of the kernel is imported: ``MainWindow.first_frame`` is mapped at once (``show`` sends the map
    request), then the views, the bridge and the kernel's client are imported and built into it before the event
    loop first runs, so its first paint is the whole window, and keys pressed meanwhile wait in the queue."""
    app = make_app(argv)
    remote = os.environ.get("AGENTDESK_KERNEL", "service") != "in-process"
    frame = None
    shown_at: list[float] = []
    if remote:
        from .main_window import MainWindow

        frame = MainWindow.first_frame()
        frame.shown.connect(lambda: shown_at.append(time.time()))
        frame.show()
    import asyncio

    import qasync

    from kernel import home

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    starter = None
    if remote:  # the window first, then the kernel service of this home (started if none runs), in the background
        desk, starter = open_window_first(home(), window=frame)
    else:
        desk = build_desktop(home(), watch_workspaces=True)
        freeze_startup_objects()
    for problem in desk.store.problems():
        print(f"agentdesk: {problem.message}", file=sys.stderr)
    closed = asyncio.Event()
    desk.window.closed.connect(closed.set)
    if os.environ.get("AGENTDESK_EXIT_WHEN_SHOWN"):
        desk.window.shown.connect(lambda: _report_shown(desk, time.time()))
        if shown_at:  # shown before it was built: said once the loop runs
            loop.call_soon(_report_shown, desk, shown_at[0])
    desk.window.show()
    show_config_problems(desk)
    if starter is not None:
        starter.begin()  # attaches, fills the windows in, asks the kernel for its sandbox mode
    else:
        desk.window.probe_sandbox_mode()  # the kernel's probe, off the Qt loop
    with loop:
        mcp = None
        if desk.in_process is not None:  # the kernel service runs its own scheduler and MCP servers
            # scheduled runs fire while this kernel runs; MCP servers start beside the window
            mcp = loop.create_task(desk.in_process.start())
            mcp.add_done_callback(lambda t: [print(f"agentdesk: {line}", file=sys.stderr) for line in
                                             (t.result() if not t.cancelled() and not t.exception() else [])])
        loop.run_until_complete(closed.wait())  # attached, the main window asked whether working agents keep running
        if desk.lease_dialogs is not None:
            desk.lease_dialogs.close()  # the keyboard watch and the tray go before the windows do
        if "questions" in desk.extras:
            desk.extras["questions"].close()
        if remote:
            loop.run_until_complete(desk.kernel.aclose())  # lets go of the kernel; it keeps running
        elif desk.in_process is not None:
            loop.run_until_complete(desk.in_process.stop_mcp())
            loop.run_until_complete(desk.in_process.providers.aclose())  # provider host processes end with it
    if desk.ledger is not None:
        desk.ledger.close()
    return 0


def _report_shown(desk: Desktop, at: float) -> None:
    loaded = [m for m in SDK_MODULES if m in sys.modules]
    print(f"shown_at={at:.6f} sdk_loaded={','.join(loaded) or 'none'}", flush=True)
    desk.window.shut_down()
