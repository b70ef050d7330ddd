"""The ledger view's model: pages of entries, newest first, never the whole history.

``LedgerPager`` is plain Python over the facade's ``ledger_page``: it holds
the pages loaded so far (200 entries each, fetched with ``before`` = the
oldest seq loaded), the active filters, and which loaded changes are undone.
New entries arrive through ``LedgerAppended`` and go on top when they match
the filters. ``LedgerTableModel`` exposes it to Qt with ``canFetchMore`` /
``fetchMore``, so a million-entry ledger opens as fast as an empty one and
loads more only as the view scrolls. New entries are inserted in batches,
one ``beginInsertRows`` per frame (``FrameClock``), however many agents append.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Iterable, Mapping, Sequence

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QApplication

from kernel.api import (
    AgentArchive, AgentBudget, ModelRequest, UserTurn, short_number, RouteBreaker, answered_by,
    AgentKill, AgentSpawn, Denied, Entry, Expired, FileChange, LeaseGrant, LeaseRevoke, LedgerAppended, LedgerFilter,
    Snapshot, ToolCall, ToolError, ToolResult, Undo, describe_duration,
)

from kernel.api import Confirmed, HookRun, UntrustedSeen
from kernel.api import Compaction, SystemPrompt  # the context engine (issue 24)
from kernel.api import McpElicit  # an MCP server's question for the user (issue 29)

from . import style
from .table_model import RowsTableModel
from .frame_clock import FrameClock
from .wording import plain_tip, plural

PAGE = 200
COLUMNS = ("seq", "time", "actor", "kind", "tool / path", "scope", "cause")
COL_SEQ, COL_TIME, COL_ACTOR, COL_KIND, COL_WHAT, COL_SCOPE, COL_CAUSE = range(len(COLUMNS))
MONO_COLUMNS = (COL_WHAT, COL_SCOPE)
EntryRole = Qt.ItemDataRole.UserRole + 1


class LedgerPager:
    """Loaded entries (newest first), filters, undone marks and workspaces for relative paths."""

    def __init__(self, page: Callable[..., list[Entry]], undone_by: Callable[[Sequence[int]], Mapping[int, int]],
                 default_root: str | None = None, page_size: int = PAGE,
                 last_seq: Callable[[], int] | None = None) -> None:
        self._page = page
        self._last_seq = last_seq
        self.high_seq = 0  # the newest seq known to be in the ledger (whatever the filters)
        self._undone_by = undone_by
        self.page_size = page_size
        self.filters = LedgerFilter()
        self.entries: list[Entry] = []
        self.undone: dict[int, int] = {}
        self.exhausted = False
        self.default_root = default_root
        self.workspaces: dict[str, str] = {}

    # ---- loading ---------------------------------------------------------------

    def reset(self, filters: LedgerFilter | None = None) -> list[Entry]:
        """Start over (new filters): drop everything and load the newest page."""
        if filters is not None:
            self.filters = filters
        self.entries, self.undone, self.exhausted = [], {}, False
        got = self.fetch_more()
        self.high_seq = max(self._last_seq() if self._last_seq else 0, got[0].seq if got else 0)
        return got

    def fetch_more(self) -> list[Entry]:
        """The next older page, appended at the bottom; [] once history is exhausted."""
        got = self.next_page()
        self.accept(got)
        return got

    def next_page(self) -> list[Entry]:
        """Query the page older than everything loaded (without keeping it yet)."""
        if self.exhausted:
            return []
        before = self.entries[-1].seq if self.entries else None
        got = self._page(self.filters, before=before, limit=self.page_size)
        if len(got) < self.page_size:
            self.exhausted = True
        return got

    def accept(self, page: list[Entry]) -> None:
        """Keep a page from ``next_page`` at the bottom, with its undone marks."""
        self._learn(page)
        self.entries.extend(page)
        changes = [e.seq for e in page if isinstance(e, FileChange)]
        if changes:
            self.undone.update(self._undone_by(changes))

    def take_new(self, entry: Entry) -> list[Entry]:
        """Entries to put on top for a newly appended one, newest first.

        Not every append is announced (file changes are written by tools
        straight to the ledger; another process may share the file), so a
        jump in seq is filled from the ledger before ``entry`` goes on top.
        """
        if entry.seq <= self.high_seq:
            return []
        new = [entry] if self.filters.matches(entry) else []
        if entry.seq > self.high_seq + 1:
            new += self._page(self.filters, after=self.high_seq, before=entry.seq, limit=10_000)
        self.high_seq = entry.seq
        self._learn(new)
        if self.entries:
            new = [e for e in new if e.seq > self.entries[0].seq]
        changes = [e.seq for e in new if isinstance(e, FileChange)]
        if changes:  # asked only for file changes (attached, each question is a round trip to the kernel)
            self.undone.update(self._undone_by(changes))
        return new

    def refresh_undone(self) -> None:
        """Recompute undone marks for every loaded change (after an undo, or a redo)."""
        seqs = [e.seq for e in self.entries if isinstance(e, FileChange)]
        undone: dict[int, int] = {}
        for i in range(0, len(seqs), 500):
            undone.update(self._undone_by(seqs[i:i + 500]))
        self.undone = undone

    def row_of(self, seq: int) -> int | None:
        for i, e in enumerate(self.entries):
            if e.seq == seq:
                return i
        return None

    # ---- words -------------------------------------------------------------------

    def _learn(self, entries: Iterable[Entry]) -> None:
        for e in entries:
            if isinstance(e, AgentSpawn) and e.workspace:
                self.workspaces.setdefault(e.actor, e.workspace)

    def relative(self, path: str, actor: str | None = None) -> str:
        """``path`` relative to the actor's workspace (or the default one) when it lies inside."""
        for root in (self.workspaces.get(actor or ""), self.default_root):
            if root:
                try:
                    rel = os.path.relpath(path, root)
                except ValueError:
                    continue
                if not rel.startswith(".."):
                    return rel
        return path

    def what(self, e: Entry) -> str:
        match e:
            case FileChange(path=path):
                return self.relative(path, e.actor)
            case ToolCall(tool=tool) | Denied(tool=tool):
                return tool
            case ToolError(tool=tool, message=message):
                return f"{tool or 'call'}: {message}"
            case ToolResult(duration_ms=ms):
                return "ok" + (f" · {ms:.0f} ms" if ms is not None else "")
            case LeaseGrant(subject=subject, duration_s=d):
                return f"→ {subject} · {describe_duration(d)}"
            case LeaseRevoke(subject=subject, reason=reason):
                return f"{subject}: {reason}" if reason else subject
            case Expired(subject=subject, tool=tool, lease=lease):
                return f"lease #{lease} of {subject}" if lease else f"request by {subject} ({tool})"
            case AgentSpawn(name=name, model=model):
                return f"{name} · {model}" if model else name
            case AgentKill(subject=subject, reason=reason):
                return f"{subject}: {reason}"
            case Undo(after_seq=after, reversed=rev, conflicts=conf):
                extra = f", {plural(len(conf), 'conflict')}" if conf else ""
                return f"after #{after}: {plural(len(rev), 'change')}{extra}"
            case Snapshot(root=root, changed=changed):
                return f"{root} ({plural(changed, 'file')} changed)"
            case UntrustedSeen(source=source):  # trust: where untrusted content came from
                return source
            case HookRun(hook=hook, when=when, outcome=outcome):
                return f"{hook} ({when}): {outcome}"
            case Confirmed(tool=tool):
                return f"{tool}, once"
            case UserTurn(text=text):
                return " ".join(text.split())[:200]
            case ModelRequest(reason=reason, status=status, input_tokens=i, output_tokens=o):
                who = answered_by(e)  # model routes: a fallback (or another model) answered
                return f"{status} · {short_number(i + o)} tokens · {reason}" + (f" · {who}" if who else "")
            case RouteBreaker(provider=provider, model=model, state=state, reason=reason):
                return f"{provider}:{model} {state.replace('_', '-')} · {reason}"
            case AgentBudget(subject=subject, budget=budget):
                return f"{subject} → {budget:,} tokens"
            case AgentArchive(subject=subject, archived=archived):
                return f"{subject} {'archived' if archived else 'continued'}"
            case Compaction(mode=mode, trigger=trigger, entries=n, tokens_before=b, tokens_after=a):
                what = "summarized" if mode == "summary" else "old results cleared"
                return f"{what} ({trigger}): {plural(n, 'entry' if mode == 'summary' else 'result')}, " \
                       f"{short_number(b)} → {short_number(a)} tokens"
            case McpElicit(server=server, action=action, subject=subject, reason=reason):  # issue 29
                asked = f"{server} asked {subject or 'the user'}: {action}"
                return f"{asked} · {reason}" if reason else asked
            case SystemPrompt(text=text, tools=tools):
                return f"system prompt · {short_number(len(text))} characters · {plural(len(tools), 'tool')}"
        return ""

    @staticmethod
    def scope(e: Entry) -> str:
        return str(getattr(e, "scope", "") or "")

    @staticmethod
    def cause(e: Entry) -> str:
        cause = getattr(e, "cause", None)
        if cause is not None:
            return f"#{cause}"
        lease = getattr(e, "lease", None)
        return f"lease #{lease}" if lease else ""


class LedgerTableModel(RowsTableModel):
    """Qt's view of ``LedgerPager``: lazy paging, live inserts at the top, undone rows struck out."""

    columns = COLUMNS

    def __init__(self, pager: LedgerPager, parent: QObject | None = None, frames: FrameClock | None = None) -> None:
        super().__init__(parent)
        self.pager = pager
        self.pager.reset()
        self._incoming: list[Entry] = []  # newest first, not yet inserted
        self._frames = frames or FrameClock(self)

    def set_filters(self, filters: LedgerFilter) -> None:
        self._frames.cancel(self)
        self.beginResetModel()
        self._incoming = []
        self.pager.reset(filters)
        self.endResetModel()

    def on_event(self, event: object) -> None:
        if not isinstance(event, LedgerAppended):
            return
        new = self.pager.take_new(event.entry)
        if new:
            self._incoming[:0] = new
            self._frames.request(self, self.flush)
        if isinstance(event.entry, Undo):
            self.flush()
            self._mark_undone()

    @property
    def pending(self) -> bool:
        return bool(self._incoming)

    def flush(self) -> None:
        """Insert every entry that arrived since the last frame, in one go, on top."""
        self._frames.cancel(self)
        if not self._incoming:
            return
        new, self._incoming = self._incoming, []
        self.beginInsertRows(QModelIndex(), 0, len(new) - 1)
        self.pager.entries[:0] = new
        self.endInsertRows()

    def _mark_undone(self) -> None:
        if self.pager.entries:
            self.pager.refresh_undone()
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.pager.entries) - 1, len(COLUMNS) - 1))

    # ---- paging ------------------------------------------------------------------

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> bool:
        return not parent.isValid() and not self.pager.exhausted

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> None:
        if parent.isValid() or self.pager.exhausted:
            return
        got = self.pager.next_page()
        if not got:
            return
        start = len(self.pager.entries)
        self.beginInsertRows(QModelIndex(), start, start + len(got) - 1)
        self.pager.accept(got)
        self.endInsertRows()

    # ---- Qt model ------------------------------------------------------------------

    def row_items(self) -> list:
        return self.pager.entries

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        e = self.pager.entries[index.row()]
        col = index.column()
        undone_by = self.pager.undone.get(e.seq)
        if role == EntryRole:
            return e
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(e, col, undone_by)
        if role == Qt.ItemDataRole.FontRole:
            font = style.mono_font() if col in MONO_COLUMNS else None
            if undone_by is not None and col != COL_CAUSE:
                font = font or QApplication.font()
                font.setStrikeOut(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole:
            if undone_by is not None:
                return style.role_colour("muted")
            if e.kind in ("error", "denied"):
                return style.role_colour("error")
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tip(self._tooltip(e, col, undone_by))
        if role == Qt.ItemDataRole.TextAlignmentRole and col == COL_SEQ:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _tooltip(self, e: Entry, col: int, undone_by: int | None) -> str | None:
        """The whole path on every cell of a row that has one (the view elides it in the middle)."""
        path = getattr(e, "path", None) or (e.root if isinstance(e, Snapshot) else None)
        lines = [path] if isinstance(path, str) and path else []
        if not lines and col == COL_WHAT:
            what = self.pager.what(e)
            lines = [what] if what else []
        if undone_by is not None:
            lines.append(f"undone by #{undone_by}")
        return "\n".join(lines) or None

    def _display(self, e: Entry, col: int, undone_by: int | None) -> str:
        if col == COL_SEQ:
            return str(e.seq)
        if col == COL_TIME:
            return time.strftime("%H:%M:%S", time.localtime(e.ts))
        if col == COL_ACTOR:
            return e.actor
        if col == COL_KIND:
            return e.kind
        if col == COL_WHAT:
            return self.pager.what(e)
        if col == COL_SCOPE:
            return self.pager.scope(e)
        if undone_by is not None:
            return f"undone by #{undone_by}"
        return self.pager.cause(e)
