"""Exactly-once inbound: a message is claimed by (channel, chat, message id) before anything is done with it.

Telegram re-sends updates whose offset was not confirmed and Slack re-sends
envelopes not acknowledged within 3 s, so the same message can arrive many
times. The claim is an ``INSERT OR IGNORE`` on that primary key in the
ledger's SQLite file (its own connection, as the automation claims): the
first arrival wins and is worked on, every later one is dropped. Claims are
append-only (triggers refuse updates and deletes). The adapter acknowledges
as soon as the claim is written; the work happens after (a crash between the
two loses the reply, never doubles it).
"""

from __future__ import annotations

import sqlite3
import threading

_SCHEMA = """
CREATE TABLE IF NOT EXISTS channel_inbound (
    channel TEXT NOT NULL, chat TEXT NOT NULL, message_id TEXT NOT NULL, ts REAL NOT NULL,
    PRIMARY KEY (channel, chat, message_id));
CREATE TRIGGER IF NOT EXISTS channel_inbound_no_update BEFORE UPDATE ON channel_inbound
BEGIN SELECT RAISE(ABORT, 'channel claims are append-only'); END;
CREATE TRIGGER IF NOT EXISTS channel_inbound_no_delete BEFORE DELETE ON channel_inbound
BEGIN SELECT RAISE(ABORT, 'channel claims are append-only'); END;
"""


class InboundClaims:
    def __init__(self, path: str) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:" if path in ("", ":memory:") else path, isolation_level=None,
                                   check_same_thread=False, timeout=10.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.executescript(_SCHEMA)

    def claim(self, channel: str, chat: str, message_id: str, now: float) -> bool:
        """True for the first arrival of this message (work on it), False for a redelivery (drop it)."""
        with self._lock:
            cur = self._db.execute("INSERT OR IGNORE INTO channel_inbound VALUES (?,?,?,?)",
                                   (channel, chat, message_id, now))
            return cur.rowcount == 1

    def count(self, channel: str | None = None) -> int:
        with self._lock:
            if channel is None:
                row = self._db.execute("SELECT COUNT(*) FROM channel_inbound").fetchone()
            else:
                row = self._db.execute("SELECT COUNT(*) FROM channel_inbound WHERE channel=?", (channel,)).fetchone()
            return int(row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
