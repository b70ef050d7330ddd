"""The main window: toolbar, the process table beside the ledger view, a status line.

It owns the agent windows (agent id → Ask window) so double-clicking a row,
"+ New Ask" and the lease dialogs all open or raise the same window. It
talks to the kernel only through the facade and learns everything else from
the bridge's events. Closing while agents work asks first (window-modal),
then shuts the kernel down with ``aclose``.

Its shortcuts (Ctrl+N, Ctrl+P, Ctrl+L, and the one that brings up a waiting
lease dialog) are application-wide: they work from every Agentdesk window,
not only when this one is active. It opens at a size that fits the screen's
available area (``sizing``), down to 1024×700.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Callable

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QResizeEvent, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QApplication, QLabel, QMainWindow, QMessageBox, QSizePolicy, QSplitter, QToolBar, QVBoxLayout, QWidget,
)

from kernel.api import ConfigError, KernelError, plural  # (light: the errors and words modules)

from . import style
from .sizing import fit_to_screen

if TYPE_CHECKING:
    from kernel.api import KernelFacade

    from .bridge import EventBridge
    from .desktop_state import DesktopState
    from .history_view import HistoryWindow  # imported when first opened: its transcript view loads markdown
    from .route_choice import RouteChoice

WindowFactory = Callable[[str], QWidget]
LeaseBringer = Callable[[str | None], object]  # an agent's lease dialog brought up (None: the oldest open)


def _section(title: str, body: QWidget) -> QWidget:
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(style.SPACING * 2, style.SPACING * 2, style.SPACING * 2, style.SPACING * 2)
    layout.setSpacing(style.SPACING * 2)
    from .widgets.dialog_parts import heading

    layout.addWidget(heading(title))
    layout.addWidget(body)
    return box


class MainWindow(QMainWindow):
    shown = Signal()   # first exposed (start-up measurement)
    closed = Signal()  # after the kernel has shut down

    def __init__(self, kernel: KernelFacade, bridge: EventBridge, *, make_ask_window: WindowFactory | None = None,
                 open_settings: Callable[[], object] | None = None, now: Callable[[], float] = time.time,
                 default_root: str | None = None, attached: bool = True, bring_up_lease: LeaseBringer | None = None,
                 state: DesktopState | None = None, kernel_outlives: bool = False) -> None:
        super().__init__()
        self._frame()
        self.build(kernel, bridge, make_ask_window=make_ask_window, open_settings=open_settings, now=now,
                   default_root=default_root, attached=attached, bring_up_lease=bring_up_lease, state=state,
                   kernel_outlives=kernel_outlives)

    @classmethod
    def first_frame(cls) -> MainWindow:
        """The window before its contents: title, icon and size, with nothing of the kernel's vocabulary or the
        views imported. ``agentdesk`` shows it at once (``show`` sends the map request to the X server then),
        and ``build`` fills it in before the event loop first runs, so its first paint is the whole window."""
        window = cls.__new__(cls)
        QMainWindow.__init__(window)
        window._frame()
        return window

    def _frame(self) -> None:
        self._exposed = False
        self._said = ""  # the waiting message in the status line, whole (``say`` cuts it to the room there)
        self.setWindowTitle("Agentdesk")
        self.setWindowIcon(style.app_icon())
        fit_to_screen(self, (1280, 760))

    def build(self, kernel: KernelFacade, bridge: EventBridge, *, make_ask_window: WindowFactory | None = None,
              open_settings: Callable[[], object] | None = None, now: Callable[[], float] = time.time,
              default_root: str | None = None, attached: bool = True, bring_up_lease: LeaseBringer | None = None,
              state: DesktopState | None = None, kernel_outlives: bool = False) -> None:
        """The toolbar, the process table, the ledger view and the status line, over ``kernel`` (once)."""
        from .lease_dialog import ANSWER_SHORTCUT
        from .ledger_view import LedgerView
        from .process_model import ProcessRows, ProcessTableModel
        from .process_view import ProcessView
        from .status import StatusCounts, StatusLabels

        self.kernel = kernel
        self.bridge = bridge
        self._default_root = default_root
        self.windows: dict[str, QWidget] = {}
        self._make_ask_window = make_ask_window
        self._open_settings = open_settings
        self._bring_up_lease = bring_up_lease
        self._shutting_down = False
        self._done = False
        self.close_prompt: QMessageBox | None = None
        self.state = state  # which Ask windows are open, kept between runs (None: not kept)
        self._kernel_outlives = kernel_outlives  # attached to a kernel process: quitting may leave agents working
        self.history: HistoryWindow | None = None

        self.rows = ProcessRows(now)  # agents and leases: the process table and the status line view them
        self.rows.load(kernel.agents.list(), kernel.leases.list())
        self.processes = ProcessTableModel(self.rows, self, frames=bridge.frames)
        self.process_view = ProcessView(kernel, self.processes)
        self.process_view.open_requested.connect(self.open_row)
        self.ledger_view = LedgerView(kernel, default_root=default_root, frames=bridge.frames)
        counts = StatusCounts(ledger_entries=kernel.ledger.count(), last_seq=kernel.ledger.last_seq(), attached=attached,
                              ledger_check=kernel.ledger.integrity(), now=now, rows=self.rows,
                              automation_check=kernel.automations.integrity(),
                              spend=kernel.agents.spend_today)
        self.status = StatusLabels(counts, self)
        self.process_view.error.connect(lambda text: self.statusBar().showMessage(text, 5000))

        self._build_toolbar()
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(_section("Processes", self.process_view))
        split.addWidget(_section("Ledger", self.ledger_view))
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([5800, 4200])  # in proportion; the processes' live leases and tokens fit at 1024 px
        split.setChildrenCollapsible(False)
        self.splitter = split
        self.setCentralWidget(split)
        self.statusBar().addPermanentWidget(self.status.footer)
        self.automations_window: QWidget | None = None  # the Automations window, made on first use
        self._sandbox_mode: object = None  # the task asking the kernel for it (kept while it runs)
        self.inbox_label = QLabel()
        self.inbox_label.setToolTip("Requests automation runs were refused, notices, mails or events not known to "
                                    "have gone out, and chat senders' pairing codes (Automations window)")
        self.statusBar().addPermanentWidget(self.inbox_label)
        self._update_inbox()
        self.statusBar().setSizeGripEnabled(False)

        self.shortcuts: dict[str, QShortcut] = {}
        for keys, action in (("Ctrl+P", self.focus_processes), ("Ctrl+L", self.focus_ledger),
                             (ANSWER_SHORTCUT, self.answer_lease)):
            shortcut = QShortcut(QKeySequence(keys), self, action)
            shortcut.setContext(Qt.ShortcutContext.ApplicationShortcut)  # from every Agentdesk window
            self.shortcuts[keys] = shortcut
        bridge.event.connect(self._on_event)
        bridge.tick.connect(self._on_tick)
        if not self.isVisible():
            fit_to_screen(self, (1280, 760))  # (again: the contents' minimum sizes count now)

    def _build_toolbar(self) -> None:
        bar = QToolBar("Main")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.new_action = QAction(style.icon("new-ask"), "+ New Ask", self)
        self.new_action.setShortcut(QKeySequence("Ctrl+N"))
        self.new_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.new_action.setToolTip("Start a new agent and open its Ask window (Ctrl+N)")
        self.new_action.triggered.connect(self.new_ask)
        self.settings_action = QAction(style.icon("settings"), "Settings", self)
        self.settings_action.triggered.connect(self.open_settings)
        self.settings_action.setShortcut(QKeySequence("Ctrl+,"))  # toolbar buttons take no focus: the keyboard's way
        self.settings_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.settings_action.setToolTip("Providers, the web, sandbox, policies, automations, accounts (Ctrl+,)")
        self.history_action = QAction(style.icon("history"), "History", self)
        self.history_action.setShortcut(QKeySequence("Ctrl+H"))
        self.history_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.history_action.setToolTip("Archived and past agents: search, open read-only, continue (Ctrl+H)")
        self.history_action.triggered.connect(self.open_history)
        bar.addAction(self.new_action)
        bar.addAction(self.settings_action)
        bar.addAction(self.history_action)
        self.automations_action = QAction("Automations", self)
        self.automations_action.setShortcut(QKeySequence("Ctrl+Shift+O"))
        self.automations_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.automations_action.setToolTip("Scheduled runs and their Inbox (Ctrl+Shift+O)")
        self.automations_action.triggered.connect(self.open_automations)
        bar.addAction(self.automations_action)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        bar.addWidget(spacer)
        self.status.headline.setContentsMargins(0, 0, style.SPACING * 3, 0)
        bar.addWidget(self.status.headline)
        self.addToolBar(bar)
        self.toolbar = bar

    # ---- events ------------------------------------------------------------------

    def _on_event(self, event: object) -> None:
        from kernel.api import (
            AgentArchived, AgentKilled, AutomationsChanged, LeaseRequested, LeaseRequestResolved, LedgerAppended,
            StartChecked,
        )

        self.rows.apply(event)
        self.ledger_view.on_event(event)
        self.status.on_event(event)
        if isinstance(event, (LeaseRequested, LeaseRequestResolved, AgentKilled)):
            self._flag_requests()
        if isinstance(event, AgentArchived):
            self._archived(event.agent.id)
        if isinstance(event, StartChecked):  # the kernel serves before its checks at start answer (issue 28)
            counts = self.status.counts
            counts.ledger_check, counts.automation_check = self.kernel.ledger.integrity(), \
                self.kernel.automations.integrity()
            self.status.refresh()
        if isinstance(event, AutomationsChanged) or (isinstance(event, LedgerAppended)
                                                      and (event.entry.kind == "outcome"
                                                           or event.entry.kind.startswith("pairing."))):
            self._update_inbox()

    def probe_sandbox_mode(self) -> None:
        """Start asking the kernel for its sandbox mode (``show_sandbox_mode``), off the Qt loop."""
        import asyncio

        self._sandbox_mode = asyncio.ensure_future(self.show_sandbox_mode())

    async def show_sandbox_mode(self) -> None:
        """Ask the kernel (its machine, attached or not) how shell commands are captured: the mode goes in
        the status line's tooltip (with the reason for a fallback), and a fallback to snapshots is said once,
        in the status bar."""
        try:
            mode = await self.kernel.sandbox_mode()
        except Exception:  # noqa: BLE001 - an older or unreachable kernel: nothing to show
            return
        self.status.counts.sandbox = mode
        self.status.refresh()
        if not mode.overlay:
            self.statusBar().showMessage("Shell commands use snapshots (no overlay here): hover the status "
                                         "line for why", 60000)

    def _update_inbox(self) -> None:
        """The Inbox's count in the status line (hidden when it is empty): refused requests and notices of
        automations, outward calls whose outcome is unknown, and chat channels' pairing codes."""
        count = len(self.kernel.automations.inbox()) + len(self.kernel.outward.unknown()) + \
            len(self.kernel.channels.pending())
        self.inbox_label.setText(f"Inbox: {plural(count, 'item')}")
        self.inbox_label.setVisible(count > 0)

    def open_automations(self) -> QWidget:
        """The Automations window (one), raised."""
        from .automations_view import AutomationsWindow

        window = self.automations_window
        if window is None or not shiboken6.isValid(window):
            window = AutomationsWindow(self.kernel, self.bridge, default_workspace=self._default_root or "")
            self.automations_window = window
        window.show()
        window.raise_()
        window.activateWindow()
        return window

    def _flag_requests(self) -> None:
        """Say in the status line that a lease request waits, and how to answer it."""
        from .lease_dialog import ANSWER_SHORTCUT

        requests = self.kernel.leases.pending()
        if not requests:
            self._said = ""
            self.statusBar().clearMessage()
            self.statusBar().setToolTip("")
            return
        first = requests[0]
        more = f" (and {plural(len(requests) - 1, 'more request')})" if len(requests) > 1 else ""
        self.say(f"\u25c6 {first.agent_name} ({first.agent_id}) waits for "
                 + (f"a one-off confirmation ({first.scope})" if first.once else f"a {first.scope} lease") + f"{more} "
                 f"\u00b7 {ANSWER_SHORTCUT} answers")  # short: at 1024 px it fits beside the footer

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if self._said:
            self.say(self._said)  # cut again for the new width

    def say(self, text: str) -> None:
        """A lasting message in the status line, cut with "…" where the footer begins (Qt drew it up to the
        footer and clipped it mid-word, so it ran into "tokens today …"); the whole text is the tooltip."""
        from .wording import plain_tip

        self._said = text
        bar = self.statusBar()
        taken = sum(w.sizeHint().width() for w in (self.status.footer, self.inbox_label) if not w.isHidden())
        room = max(40, bar.width() - taken - 4 * style.SPACING)
        bar.showMessage(bar.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, room))
        bar.setToolTip(plain_tip(text) or "")

    def _on_tick(self) -> None:
        self.processes.on_tick()
        self.status.refresh()

    def showEvent(self, e: QShowEvent) -> None:
        super().showEvent(e)
        if not self._exposed:
            self._exposed = True
            self.shown.emit()

    # ---- actions --------------------------------------------------------------------

    def _come_forward(self) -> None:
        if not self.isActiveWindow():
            self.show()
            self.raise_()
            self.activateWindow()

    def focus_processes(self) -> None:
        self._come_forward()
        self.process_view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_ledger(self) -> None:
        self._come_forward()
        view = self.ledger_view
        target = view.table if view.stack.currentWidget() is view.table else view.actor  # empty: the filters
        target.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def answer_lease(self) -> None:
        """Bring up the lease dialog of the active Ask window's agent, or else the oldest one open."""
        if self._bring_up_lease is None:
            return
        active = QApplication.activeWindow()
        agent_id = next((aid for aid, w in self.windows.items() if w is active), None)
        if agent_id is None or self._bring_up_lease(agent_id) is None:
            self._bring_up_lease(None)

    def new_ask(self) -> QWidget | None:
        """Spawn an agent with a generated name and open its Ask window; a workspace the kernel refuses
        (settings.json edited by hand) is said in the status line, and Settings opens to choose another."""
        try:
            info = self.kernel.agents.spawn()
        except ConfigError as exc:
            self.statusBar().showMessage(f"No agent started: {exc}. Choose another workspace in Settings.", 20000)
            self.open_settings()
            return None
        return self.window_for(info.id)

    def start_with_route(self, agent_id: str, choice: RouteChoice) -> QWidget | None:
        """A new Ask window's route was chosen before its first message: the kernel starts an agent on that
        route (spawn), the blank one goes to History (archived: it was sent nothing), and the new agent's
        window takes the old one's place with what was typed. A route the kernel refuses is said in the form."""
        old = self.windows.get(agent_id)
        try:
            info = self.kernel.agents.spawn(provider=choice.provider, model=choice.model,
                                            fallbacks=choice.fallbacks, any_vendor=choice.any_vendor)
        except (KernelError, ValueError) as exc:
            refused = getattr(old, "route_refused", None)
            if refused is not None:
                refused(str(exc)[:1].upper() + str(exc)[1:])
            return None
        with contextlib.suppress(KernelError):  # already gone (killed meanwhile): nothing to put away
            self.kernel.agents.archive(agent_id)
        window = self.window_for(info.id)
        if old is not None:
            window.setGeometry(old.geometry())
            typed, box = getattr(old, "input", None), getattr(window, "input", None)
            if typed is not None and box is not None:
                box.setPlainText(typed.toPlainText())
            old.close()
        return window

    def window_for(self, agent_id: str, activate: bool = True) -> QWidget:
        """The agent's Ask window, opened and raised (``activate``), or just shown without taking the keyboard."""
        window = self.windows.get(agent_id)
        if window is None:
            factory = self._make_ask_window or self._default_ask_window
            window = factory(agent_id)
            self.windows[agent_id] = window
            window.destroyed.connect(lambda *_a, aid=agent_id: self.windows.pop(aid, None))
            closed = getattr(window, "view_closed", None)
            if closed is not None:
                closed.connect(lambda aid: self.remember_windows(closing=aid))  # still visible while it closes
            chosen = getattr(window, "route_chosen", None)  # a route chosen before the first message
            if chosen is not None:
                chosen.connect(self.start_with_route)
            answer = getattr(window, "answer_requested", None)  # a click on its waiting-request flag
            if answer is not None and self._bring_up_lease is not None:
                answer.connect(self._bring_up_lease)
        if not activate:
            if not window.isVisible():
                window.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
                window.show()
                window.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, False)
            self.remember_windows()
            return window
        window.show()
        window.raise_()
        window.activateWindow()
        self.remember_windows()
        return window

    def open_row(self, agent_id: str) -> QWidget:
        """Enter or double-click on a row: the agent's window, and its waiting request's dialog (the user asked)."""
        window = self.window_for(agent_id)
        if self._bring_up_lease is not None:
            self._bring_up_lease(agent_id)
        return window

    # ---- a kernel that restarted under the desktop -------------------------------------

    def detach(self) -> None:
        """The kernel went away: no window goes on saying "running" with live Kill buttons. The table, each
        open Ask window and the Automations window say "kernel detached" until ``reattach``."""
        self.rows.set_detached(True)
        for window in [*self.windows.values(), self.automations_window]:
            if window is not None and shiboken6.isValid(window) and hasattr(window, "detach"):
                window.detach()
        self.status.refresh()

    def reattach(self) -> None:
        """The kernel came back (it restarted): show its agents as they are now. The events in
        between died with the old kernel, so the table is reloaded rather than patched, and each
        open Ask window catches up with its agent and carries on."""
        self.rows.set_detached(False)
        self.rows.reload(self.kernel.agents.list(), self.kernel.leases.list())
        for window in [*self.windows.values(), self.automations_window]:
            catch_up = getattr(window, "reattach", None) if window is not None and shiboken6.isValid(window) else None
            if catch_up is not None:
                catch_up()
        self._flag_requests()
        self.status.refresh()

    # ---- windows that outlive a run, archive, history ------------------------------------

    def remember_windows(self, closing: str | None = None) -> None:
        """Note which Ask windows are open now (less the one ``closing``), for the next start (not while
        quitting: they close then)."""
        if self.state is not None and not self._shutting_down and not self._done:
            self.state.save_open_windows([aid for aid, w in self.windows.items() if w.isVisible() and aid != closing])

    def reopen_windows(self) -> list[QWidget]:
        """Open the Ask windows that were open when the desktop last ran (agents still in the table)."""
        if self.state is None:
            return []
        listed = {a.id for a in self.kernel.agents.list()}
        return [self.window_for(aid, activate=False) for aid in self.state.open_windows() if aid in listed]

    def _archived(self, agent_id: str) -> None:
        window = self.windows.pop(agent_id, None)
        if window is not None:
            window.close()
            window.deleteLater()
        self.remember_windows()
        if self.history is not None and shiboken6.isValid(self.history):
            self.history.refresh()

    def open_history(self) -> HistoryWindow:
        """The History window (one), raised and refreshed."""
        from .history_view import HistoryWindow

        history = self.history
        if history is None or not shiboken6.isValid(history):
            history = self.history = HistoryWindow(self.kernel, self.window_for)
        else:
            history.refresh()
        history.show()
        history.raise_()
        history.activateWindow()
        history.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        return history

    def _default_ask_window(self, agent_id: str) -> QWidget:
        from .ask_window import AskWindow

        return AskWindow(self.kernel, agent_id, self.bridge, self.open_settings)

    def set_default_root(self, root: str) -> None:
        """The default workspace changed (Settings): relative paths in the ledger filter follow it."""
        self.ledger_view.set_default_root(root)
        self._default_root = root

    def open_settings(self) -> object:
        """The Settings dialog, as the desktop opens it (None when this window was given no way to)."""
        return self._open_settings() if self._open_settings is not None else None

    # ---- closing ------------------------------------------------------------------------

    def busy_agents(self) -> list[str]:
        return [a.name for a in self.kernel.agents.list() if a.state.busy]

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._done:
            event.accept()
            return
        event.ignore()
        if self._shutting_down:
            return
        busy = self.busy_agents()
        if not busy:
            self.shut_down()
            return
        if self._kernel_outlives:
            self._ask_keep_or_stop(busy)
            return
        box = QMessageBox(QMessageBox.Icon.Question, "Quit Agentdesk?",
                          f"{plural(len(busy), 'agent')} {'is' if len(busy) == 1 else 'are'} still working: {', '.join(busy)}.\n"
                          "Quitting stops them (recorded in the ledger as killed by the kernel).",
                          QMessageBox.StandardButton.Cancel, self)
        quit_button = box.addButton("Stop agents and quit", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.buttonClicked.connect(lambda b: self.shut_down() if b is quit_button else None)
        self.close_prompt = box
        box.open()

    def _ask_keep_or_stop(self, busy: list[str]) -> None:
        """Attached: the agents can keep running in the kernel process while the desktop is closed, or stop."""
        box = QMessageBox(QMessageBox.Icon.Question, "Quit Agentdesk?",
                          f"{plural(len(busy), 'agent')} {'is' if len(busy) == 1 else 'are'} still working: "
                          f"{', '.join(busy)}.\nThey can keep running in the kernel while the desktop is closed, "
                          "or stop now (recorded in the ledger).", QMessageBox.StandardButton.Cancel, self)
        keep = box.addButton("Keep them running", QMessageBox.ButtonRole.AcceptRole)
        stop = box.addButton("Stop them and quit", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(keep)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.buttonClicked.connect(lambda b: self.shut_down() if b is keep else self._stop_and_quit() if b is stop
                                  else None)
        self.close_prompt = box
        box.open()

    def _stop_and_quit(self) -> None:
        for agent in self.kernel.agents.list():
            if agent.state.busy:
                self.kernel.agents.kill(agent.id, reason="stopped when the desktop quit")
        self.shut_down()

    def shut_down(self) -> None:
        """Stop the kernel (``aclose``), then close every window."""
        if self._shutting_down:
            return
        self._shutting_down = True
        import asyncio

        asyncio.ensure_future(self._shut_down())

    async def _shut_down(self) -> None:
        try:
            await self.kernel.aclose()
        finally:
            self.bridge.close()
            for window in list(self.windows.values()):
                window.close()
            if self.history is not None and shiboken6.isValid(self.history):
                self.history.close()
            self._done = True
            if shiboken6.isValid(self):
                self.close()
                self.closed.emit()
