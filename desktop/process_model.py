"""The desktop's one model of agents and leases, fed by kernel events, and the process table's Qt model.

``ProcessRows`` knows nothing of Qt: it applies one kernel event at a time
and announces what changed to its listeners (a row inserting, inserted,
cells of a row changed), as napari's models do for their Qt adapters. The
process table (``ProcessTableModel``) turns those announcements into
``beginInsertRows``/``endInsertRows`` and ``dataChanged``, and the status
line (``status.StatusCounts``) counts from the same rows; neither asks the
kernel anything after start-up, so both are exactly the event stream's view
of the processes.

Updates are coalesced: twenty agents reporting usage and changing state
mark rows dirty, and the ``FrameClock`` has a single ``dataChanged``
emitted per frame, so the view (whose columns size to their
contents) measures and repaints once per frame, not once per event.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QApplication

from kernel.api import (
    AgentState,
    AgentArchived, AgentInfo, AgentKilled, AgentSpawned, AgentStateChanged, Lease, LeaseExpired, LeaseGranted, LeaseRevoked,
    UsageUpdated, describe_left, money,
)
from kernel.api import AgentTainted

from . import style
from .lease_dialog import ANSWER_SHORTCUT
from .table_model import RowsTableModel
from .frame_clock import FrameClock
from .wording import plain_tip

COLUMNS = ("id", "name \u00b7 model", "state", "tokens", "leases", "started", "")
COL_ID, COL_NAME, COL_STATE, COL_TOKENS, COL_LEASES, COL_STARTED, COL_KILL = range(len(COLUMNS))
DETACHED = "kernel detached"
DETACHED_TIP = ("The kernel is not reachable (it stopped or is restarting); the desktop reconnects by itself. "
                "Nothing can be killed, paused or sent until it is back.")
ModelRole = Qt.ItemDataRole.UserRole + 3     # "provider · model", drawn muted after the name
ANSWER_HINT = "press Enter or double-click to answer ({shortcut} from any window)"
TAINT_BADGE = "\u26a0 tainted"  # beside the state of an agent that read untrusted content (reason in the tooltip)
DEGRADED_BADGE = "\u2933 degraded"  # beside the state of an agent answered by a fallback model (why in the tooltip)
AgentRole = Qt.ItemDataRole.UserRole + 1     # the row's AgentInfo
FractionRole = Qt.ItemDataRole.UserRole + 2  # tokens used / budget, 0..1


@dataclass(frozen=True)
class RowChange:
    """What the rows announce: ``kind`` is "inserting" (``row`` is about to appear), "inserted",
    "removing"/"removed", "resetting"/"reset" (every row replaced), or "changed" (those ``columns``
    of ``row``; ``row`` None: a lease of an agent not listed)."""

    kind: str
    row: int | None
    columns: tuple[int, ...] = ()


RowListener = Callable[[RowChange], None]


class ProcessRows:
    """Agents in spawn order with their live leases; updated only by ``apply``, which announces
    each change to every listener."""

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self.now = now
        self.agents: list[AgentInfo] = []
        self.leases: dict[str, list[Lease]] = {}
        self._index: dict[str, int] = {}
        self._listeners: list[RowListener] = []
        self.detached = False  # the kernel went away: a working agent's state is not known, nothing can be killed

    def set_detached(self, detached: bool) -> None:
        """The kernel went away (True) or came back: every row's state and Kill button change."""
        if detached != self.detached:
            self.detached = detached
            for row in range(len(self.agents)):
                self._announce(RowChange("changed", row, (COL_STATE, COL_KILL)))

    def listen(self, fn: RowListener) -> Callable[[], None]:
        """Hear every change from now on; returns the function that stops it."""
        self._listeners.append(fn)
        return lambda: self._listeners.remove(fn) if fn in self._listeners else None

    def _announce(self, change: RowChange | None) -> None:
        if change is not None:
            for fn in tuple(self._listeners):
                fn(change)

    def load(self, agents: Iterable[AgentInfo], leases: Iterable[Lease]) -> None:
        for info in agents:
            self._index[info.id] = len(self.agents)
            self.agents.append(info)
        for lease in leases:
            self.leases.setdefault(lease.subject, []).append(lease)

    def reload(self, agents: Iterable[AgentInfo], leases: Iterable[Lease]) -> None:
        """Become the kernel's table as it is now (after a kernel restart the events in between are
        gone: agents may have changed state, been archived or killed); announced as one reset."""
        self._announce(RowChange("resetting", None))
        self.agents, self.leases, self._index = [], {}, {}
        self.load(agents, leases)
        self._announce(RowChange("reset", None))

    def degraded(self) -> list[AgentInfo]:
        """Live agents answered by a fallback model now."""
        return [a for a in self.agents if a.degraded and not a.state.final]

    def row_of(self, agent_id: str) -> int | None:
        return self._index.get(agent_id)

    def apply(self, event: object) -> None:
        match event:
            case AgentSpawned(agent=info):
                if info.id in self._index:
                    self._announce(self._update(info, (COL_STATE, COL_TOKENS)))
                    return
                row = len(self.agents)
                self._announce(RowChange("inserting", row))
                self._index[info.id] = row
                self.agents.append(info)
                self._announce(RowChange("inserted", row))
            case AgentStateChanged(agent=info) | AgentKilled(agent=info):
                self._announce(self._update(info, (COL_STATE, COL_KILL)))
            case UsageUpdated(agent=info):  # also says when a fallback began or stopped answering (the state's badge)
                self._announce(self._update(info, (COL_STATE, COL_TOKENS)))
            case AgentTainted(agent=info):
                self._announce(self._update(info, (COL_STATE,)))
            case AgentArchived(agent=info):
                self._remove(info.id)
            case LeaseGranted(lease=lease):
                self.leases.setdefault(lease.subject, []).append(lease)
                self._announce(self._lease_change(lease.subject))
            case LeaseRevoked(lease=lease) | LeaseExpired(lease=lease):
                held = self.leases.get(lease.subject, [])
                self.leases[lease.subject] = [l for l in held if l.id != lease.id]
                self._announce(self._lease_change(lease.subject))

    def _remove(self, agent_id: str) -> None:
        row = self._index.get(agent_id)
        if row is None:
            return
        self._announce(RowChange("removing", row))
        del self.agents[row]
        self._index = {a.id: i for i, a in enumerate(self.agents)}
        self.leases.pop(agent_id, None)
        self._announce(RowChange("removed", row))

    def _update(self, info: AgentInfo, columns: tuple[int, ...]) -> RowChange | None:
        row = self._index.get(info.id)
        if row is None:
            return None
        self.agents[row] = info
        return RowChange("changed", row, columns)

    def _lease_change(self, agent_id: str) -> RowChange:
        return RowChange("changed", self._index.get(agent_id), (COL_LEASES,))

    def live_leases(self, agent_id: str) -> list[Lease]:
        """The agent's leases that have time left now (an expired lease is simply not there)."""
        now = self.now()
        return sorted((l for l in self.leases.get(agent_id, []) if l.until > now), key=lambda l: l.until)

    def drop_expired(self) -> list[int]:
        """Forget leases whose time is up; returns the rows whose lease count changed."""
        now, rows = self.now(), []
        for agent_id, held in self.leases.items():
            live = [l for l in held if l.until > now]
            if len(live) != len(held):
                self.leases[agent_id] = live
                if agent_id in self._index:
                    rows.append(self._index[agent_id])
        return rows

    def lease_tooltip(self, agent_id: str) -> str:
        leases = self.live_leases(agent_id)
        if not leases:
            return "No live leases"
        now = self.now()
        return "\n".join(f"{l.scope} · {describe_left(l.seconds_left(now))}" for l in leases)

    def total_leases(self) -> int:
        """Live leases of every agent, listed or not."""
        return sum(len(self.live_leases(a)) for a in self.leases)

    def count_in(self, state: AgentState) -> int:
        return sum(1 for a in self.agents if a.state is state)


class ProcessTableModel(RowsTableModel):
    """Qt's view of ``ProcessRows``."""

    columns = COLUMNS

    def __init__(self, rows: ProcessRows, parent: QObject | None = None, frames: FrameClock | None = None) -> None:
        super().__init__(parent)
        self.rows = rows
        self._dirty: dict[int, set[int]] = {}  # row -> columns changed since the last frame
        self._frames = frames or FrameClock(self)
        rows.listen(self._follow)

    # ---- following the rows ----------------------------------------------------

    def _follow(self, change: RowChange) -> None:
        if change.kind == "resetting":
            self._dirty = {}
            self.beginResetModel()
            return
        if change.kind == "reset":
            self.endResetModel()
            return
        if change.row is None:
            return
        if change.kind == "inserting":
            self.beginInsertRows(QModelIndex(), change.row, change.row)
        elif change.kind == "inserted":
            self.endInsertRows()
        elif change.kind == "removing":
            self._dirty = {}  # row numbers shift: repaint what is left as it is
            self.beginRemoveRows(QModelIndex(), change.row, change.row)
        elif change.kind == "removed":
            self.endRemoveRows()
        else:
            self._dirty.setdefault(change.row, set()).update(change.columns)
            self._frames.request(self, self.flush)

    @property
    def pending(self) -> bool:
        return bool(self._dirty)

    def flush(self) -> None:
        """Announce every row changed since the last frame in one ``dataChanged``."""
        self._frames.cancel(self)
        if not self._dirty:
            return
        rows, cols = self._dirty.keys(), set().union(*self._dirty.values())
        top_left, bottom_right = self.index(min(rows), min(cols)), self.index(max(rows), max(cols))
        self._dirty = {}
        self.dataChanged.emit(top_left, bottom_right)

    def on_tick(self) -> None:
        """Countdowns move and expired leases go, even before the kernel's sweep says so."""
        self.rows.drop_expired()
        if self.rows.agents:
            self.dataChanged.emit(self.index(0, COL_LEASES), self.index(len(self.rows.agents) - 1, COL_LEASES))

    # ---- Qt model --------------------------------------------------------------

    def row_items(self) -> list:
        return self.rows.agents

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        info = self.rows.agents[index.row()]
        col = index.column()
        if role == AgentRole:
            return info
        if role == ModelRole:
            return f"{info.provider} \u00b7 {info.model}"
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(info, col)
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tip(self._tooltip(info, col))
        if role == Qt.ItemDataRole.ForegroundRole and col == COL_STATE:
            return style.role_colour("muted") if self.rows.detached and not info.state.final \
                else style.state_colour(info.state)
        if role == Qt.ItemDataRole.FontRole:
            if col == COL_ID:
                return style.mono_font()
            if col == COL_STATE and info.state is AgentState.WAITING:
                font = QApplication.font()
                font.setBold(True)
                return font
        if role == Qt.ItemDataRole.BackgroundRole and col == COL_STATE and info.state is AgentState.WAITING:
            return style.role_colour("waiting_bg")
        if role == FractionRole:
            return min(1.0, info.used / info.budget) if info.budget else 0.0
        return None

    def _display(self, info: AgentInfo, col: int) -> str:
        if col == COL_ID:
            return info.id
        if col == COL_NAME:
            return info.name
        if col == COL_STATE:
            if self.rows.detached and not info.state.final:
                return DETACHED  # "running" is what the kernel said before it went: not known now
            return (style.state_text(info.state) + (f"  {TAINT_BADGE}" if info.tainted else "")
                    + (f"  {DEGRADED_BADGE}" if info.degraded and not info.state.final else ""))
        if col == COL_TOKENS:  # with a price, what they cost (the bar shows the budget); else tokens only
            if info.cost is not None:
                return f"{style.short_tokens(info.used)} \u00b7 {money(info.cost)}"
            return f"{style.short_tokens(info.used)} / {style.short_tokens(info.budget)}"
        if col == COL_LEASES:  # scope and time left, visible without a click; the others counted
            leases = self.rows.live_leases(info.id)
            if not leases:
                return "–"
            first = leases[0]
            more = f" +{len(leases) - 1}" if len(leases) > 1 else ""
            return f"{first.scope} \u00b7 {describe_left(first.seconds_left(self.rows.now()))}{more}"
        if col == COL_STARTED:
            return time.strftime("%H:%M", time.localtime(info.started_at))
        return "Kill" if not info.state.final and not self.rows.detached else ""

    def _tooltip(self, info: AgentInfo, col: int) -> str | None:
        if col == COL_LEASES:
            return self.rows.lease_tooltip(info.id)
        if col == COL_STATE and self.rows.detached and not info.state.final:
            return f"{DETACHED_TIP} Before it went, {info.name} was {info.state}."
        if col == COL_STATE:
            taint = f"\ntainted: {info.tainted}; outward actions ask every time" if info.tainted else ""
            taint += f"\ndegraded: {info.degraded}" if info.degraded and not info.state.final else ""
            if info.state is AgentState.WAITING:  # a lease request waits for a person: say how to answer it
                what = f" ({info.reason})" if info.reason else ""
                return f"waiting \u2014 lease request{what}; " + ANSWER_HINT.format(shortcut=ANSWER_SHORTCUT) + taint
            return (f"{info.state}: {info.reason}" if info.reason else str(info.state)) + taint
        if col == COL_TOKENS:
            cost = (f"cost {money(info.cost)}" if info.cost is not None
                    else f"no price for {info.model} in Settings: tokens only")
            return (f"{info.used:,} of {info.budget:,} tokens "
                    f"({info.input_tokens:,} in, {info.output_tokens:,} out); {cost}")
        if col == COL_NAME:
            return f"{info.name} · {info.provider} {info.model}\n{info.workspace}"
        if col == COL_STARTED:
            return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info.started_at))
        if col == COL_KILL and self.rows.detached:
            return DETACHED_TIP
        if col == COL_KILL:
            return "Kill this agent: stop its work and revoke its leases"
        return None
