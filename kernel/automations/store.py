"""Automations, their slot claims, runs and the Inbox: append-only tables beside the ledger's entries.

They live in the ledger's SQLite file (its own connection, WAL, a busy
timeout) so every scheduler on one home sees the same claims. Like the
ledger, nothing here is updated or deleted: triggers refuse it. An
automation's state is the newest of its events (create, update, pause,
resume, delete); a run's outcome is its end row; an Inbox item's state is
its newest action. The claim is the exactly-once decision: ``INSERT OR
IGNORE`` on the primary key (automation, slot, attempt), and the scheduler
that inserted the row (rowcount 1) runs it (two processes raced over 1,440
fires with no duplicate, shared/LIBRARIES.md §2). Every row is linked into
one hash chain as it is written (``chain``), so ``agentdesk ledger verify``
notices a row changed, deleted or added with the triggers dropped.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from . import chain
from .model import Automation

_NO_CHANGE = """
CREATE TRIGGER IF NOT EXISTS {t}_no_update BEFORE UPDATE ON {t}
BEGIN SELECT RAISE(ABORT, 'automation records are append-only: {t} rows cannot be updated'); END;
CREATE TRIGGER IF NOT EXISTS {t}_no_delete BEFORE DELETE ON {t}
BEGIN SELECT RAISE(ABORT, 'automation records are append-only: {t} rows cannot be deleted'); END;
"""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS automation_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, ts REAL NOT NULL, automation TEXT NOT NULL,
    action TEXT NOT NULL, actor TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS automation_claims (
    automation TEXT NOT NULL, slot REAL NOT NULL, attempt INTEGER NOT NULL, worker TEXT NOT NULL,
    claimed_at REAL NOT NULL, manual INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (automation, slot, attempt));
CREATE TABLE IF NOT EXISTS automation_runs (
    automation TEXT NOT NULL, slot REAL NOT NULL, attempt INTEGER NOT NULL, ts REAL NOT NULL,
    agent TEXT, outcome TEXT NOT NULL, detail TEXT NOT NULL, summary TEXT NOT NULL, files TEXT NOT NULL,
    PRIMARY KEY (automation, slot, attempt));
CREATE TABLE IF NOT EXISTS automation_run_agents (
    automation TEXT NOT NULL, slot REAL NOT NULL, attempt INTEGER NOT NULL, agent TEXT NOT NULL,
    PRIMARY KEY (automation, slot, attempt));
CREATE TABLE IF NOT EXISTS inbox_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, ts REAL NOT NULL, item INTEGER, action TEXT NOT NULL,
    automation TEXT NOT NULL, kind TEXT NOT NULL, scope TEXT NOT NULL, detail TEXT NOT NULL);
""" + "".join(_NO_CHANGE.format(t=t) for t in (
    "automation_events", "automation_claims", "automation_runs", "automation_run_agents", "inbox_events"))


@dataclass(frozen=True)
class Claim:
    automation: str
    slot: float
    attempt: int
    worker: str
    claimed_at: float
    manual: bool


@dataclass(frozen=True)
class RunRecord:
    """One run (or missed slot) as the kernel recorded it when it ended."""

    automation: str
    slot: float
    attempt: int
    ts: float
    agent: str | None
    outcome: str
    detail: str
    summary: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class InboxItem:
    id: int
    ts: float
    automation: str
    kind: str        # request (a refused lease request) · notice
    scope: str
    detail: str
    state: str       # open · added · dismissed


class AutomationStore:
    def __init__(self, path: str) -> None:
        self._lock = threading.RLock()
        self._db = sqlite3.connect(":memory:" if path in ("", ":memory:") else path, isolation_level=None,
                                   check_same_thread=False, timeout=10.0)
        self._db.execute("PRAGMA journal_mode=WAL")  # as the ledger: readers never wait on the writer
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.executescript(_SCHEMA)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                new = self._db.execute("SELECT 1 FROM sqlite_master WHERE name='automation_chain'").fetchone() is None
                # statement by statement: executescript would commit in the middle of this transaction
                for statement in chain.SCHEMA.split(";\n"):
                    if statement.strip():
                        self._db.execute(statement)
                if new:  # migration "automation chain": link the rows written before it
                    chain.adopt_unlinked(self._db)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def verify_chain(self) -> chain.ChainBroken | chain.ChainIntact:
        with self._lock:
            return chain.verify(self._db)

    def check_at_start(self, head_file: Path | None) -> chain.ChainBroken | chain.ChainIntact:
        """The quick check of the chain at kernel start (``chain_start``): fast however long the history."""
        from . import chain_start

        with self._lock:
            return chain_start.check(self._db, head_file)

    def _insert(self, table: str, sql: str, args: tuple[Any, ...]) -> int | None:
        """Insert one row and link it into the chain, atomically for every process on the file; the new
        rowid, or None when ``INSERT OR IGNORE`` found the row already there."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(sql, args)
                row = int(cur.lastrowid) if cur.rowcount == 1 and cur.lastrowid is not None else None
                if row is not None:
                    chain.append(self._db, table, row)
                self._db.execute("COMMIT")
                return row
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row | tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # ---- definitions ---------------------------------------------------------------

    def record(self, ts: float, automation: Automation, action: str, actor: str) -> None:
        self._insert("automation_events",
                     "INSERT INTO automation_events(ts, automation, action, actor, body) VALUES (?,?,?,?,?)",
                     (ts, automation.id, action, actor, json.dumps(automation.to_json())))

    def definition_problem(self, automation_id: str) -> str | None:
        """Why the row that holds ``automation_id``'s current definition fails its chain link, or None."""
        with self._lock:
            found = self._db.execute("SELECT MAX(seq) FROM automation_events WHERE automation = ?",
                                     (automation_id,)).fetchone()
            if found is None or found[0] is None:
                return None
            try:
                return chain.row_problem(self._db, "automation_events", int(found[0]))
            except sqlite3.DatabaseError as exc:
                return f"the automation records cannot be read ({exc})"

    def automations(self, *, deleted: bool = False) -> list[Automation]:
        rows = self._rows("SELECT e.action, e.body FROM automation_events e JOIN (SELECT automation, MAX(seq) s "
                          "FROM automation_events GROUP BY automation) m ON e.seq = m.s ORDER BY e.automation")
        return [Automation.from_json(json.loads(body)) for action, body in rows if deleted or action != "delete"]

    def history(self, automation: str) -> list[tuple[float, str, str]]:
        return [(r[0], r[1], r[2]) for r in self._rows(
            "SELECT ts, action, actor FROM automation_events WHERE automation=? ORDER BY seq", (automation,))]

    def enabled_since(self, automation: str) -> float | None:
        """When the automation was last created, resumed or changed (slots before it are not owed)."""
        row = self._rows("SELECT MAX(ts) FROM automation_events WHERE automation=? AND action IN "
                         "('create','resume','update')", (automation,))
        return None if not row or row[0][0] is None else float(row[0][0])

    # ---- claims and runs ---------------------------------------------------------

    def claim(self, automation: str, slot: float, attempt: int, worker: str, now: float, manual: bool = False) -> bool:
        """True when this worker won (automation, slot, attempt): it alone runs it."""
        return self._insert("automation_claims", "INSERT OR IGNORE INTO automation_claims VALUES (?,?,?,?,?,?)",
                            (automation, slot, attempt, worker, now, int(manual))) is not None

    def note_agent(self, automation: str, slot: float, attempt: int, agent: str) -> None:
        self._insert("automation_run_agents", "INSERT OR IGNORE INTO automation_run_agents VALUES (?,?,?,?)",
                     (automation, slot, attempt, agent))

    def finish(self, run: RunRecord) -> bool:
        """Record how a claimed slot ended; the first end recorded stands."""
        return self._insert("automation_runs", "INSERT OR IGNORE INTO automation_runs VALUES (?,?,?,?,?,?,?,?,?)",
                            (run.automation, run.slot, run.attempt, run.ts, run.agent, run.outcome, run.detail,
                             run.summary, json.dumps(list(run.files)))) is not None

    def last_slot(self, automation: str) -> float | None:
        row = self._rows("SELECT MAX(slot) FROM automation_claims WHERE automation=? AND manual=0", (automation,))
        return None if row[0][0] is None else float(row[0][0])

    def runs(self, automation: str, limit: int = 100) -> list[RunRecord]:
        rows = self._rows("SELECT * FROM automation_runs WHERE automation=? ORDER BY ts DESC, slot DESC, attempt DESC "
                          "LIMIT ?", (automation, limit))
        return [RunRecord(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], tuple(json.loads(r[8]))) for r in rows]

    def unfinished(self) -> list[Claim]:
        rows = self._rows("SELECT c.* FROM automation_claims c LEFT JOIN automation_runs r USING (automation, slot, "
                          "attempt) WHERE r.outcome IS NULL")
        return [Claim(r[0], r[1], r[2], r[3], r[4], bool(r[5])) for r in rows]

    def agent_of(self, automation: str, slot: float, attempt: int) -> str | None:
        row = self._rows("SELECT agent FROM automation_run_agents WHERE automation=? AND slot=? AND attempt=?",
                         (automation, slot, attempt))
        return row[0][0] if row else None

    # ---- the inbox -----------------------------------------------------------------

    def inbox_add(self, ts: float, automation: str, kind: str, scope: str, detail: str) -> int:
        return self._insert("inbox_events", "INSERT INTO inbox_events(ts, item, action, automation, kind, scope, "
                            "detail) VALUES (?, NULL, 'open', ?, ?, ?, ?)", (ts, automation, kind, scope, detail)) or 0

    def inbox_close(self, ts: float, item: InboxItem, action: str) -> None:
        self._insert("inbox_events", "INSERT INTO inbox_events(ts, item, action, automation, kind, scope, detail) "
                     "VALUES (?,?,?,?,?,?,?)", (ts, item.id, action, item.automation, item.kind, item.scope, item.detail))

    def inbox(self, *, open_only: bool = True) -> list[InboxItem]:
        closed = {r[0]: r[1] for r in self._rows("SELECT item, action FROM inbox_events WHERE item IS NOT NULL")}
        items = [InboxItem(r[0], r[1], r[2], r[3], r[4], r[5], closed.get(r[0], "open")) for r in self._rows(
            "SELECT seq, ts, automation, kind, scope, detail FROM inbox_events WHERE item IS NULL ORDER BY seq")]
        return [i for i in items if i.state == "open"] if open_only else items

    def __iter__(self) -> Iterator[Automation]:
        return iter(self.automations())
