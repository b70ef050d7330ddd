"""Checking the hash chain and the blobs: the full verify and the quick one at start.

``full`` walks every entry from the genesis, recomputing each hash, and
re-reads every blob (its bytes must still hash to its name, and every blob
a kept file change names must be there). ``since`` is what the kernel runs
at start: it trusts what an earlier check recorded (the *head*, the last
verified seq and hash, kept in a file beside the database), checks that the
head entry still carries that hash, walks only the entries after it, and
spot-checks a few older entries against their stored predecessor hash.
Measured 2026-12 on the shared 2-core box (benchmarks/ledger_bench.py), on
a million entries: the full verify 16 s, the start check 2 ms.

What the chain cannot see on its own: someone who deletes the newest entries,
or rewrites history and recomputes every later hash, leaves a chain that is
consistent in itself. The recorded head catches both (it names a seq that is
gone or a hash that changed) as long as the head file itself is kept; like a
transparency log's published head, the hash that ``agentdesk ledger verify``
prints is what to keep elsewhere for proof beyond this machine.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Literal

from . import blobs
from .chain import CHAIN_COLUMNS, GENESIS, link
from .errors import CorruptBlob, UnknownBlob

Problem = Literal["altered", "missing", "unchained", "truncated", "blob"]
_SELECT = f"SELECT {', '.join(CHAIN_COLUMNS)}, hash FROM entries"
SPOT_CHECKS = 32


@dataclass(frozen=True)
class Head:
    """The newest entry a check found intact: its seq and its hash (hex)."""

    seq: int
    hash: str


@dataclass(frozen=True)
class Intact:
    """The ledger checked out up to ``head`` (None: no entries yet); ``checked`` entries were hashed."""

    head: Head | None
    entries: int
    blobs: int = 0
    checked: int = 0

    @property
    def upto(self) -> int:
        return 0 if self.head is None else self.head.seq


@dataclass(frozen=True)
class Broken:
    """The first entry found broken, what is wrong with it (``problem``) and a one-line reason.
    ``seq`` is None only for a damaged blob that no entry names."""

    seq: int | None
    problem: Problem
    reason: str


Integrity = Intact | Broken


def _rows(db: sqlite3.Connection, where: str, args: tuple[object, ...]) -> Iterable[tuple]:
    cur = db.cursor()
    cur.row_factory = None
    return cur.execute(f"{_SELECT} {where}", args)


def _check(prev: bytes, row: tuple) -> Broken | None:
    """Whether ``row`` (columns then hash) chains from ``prev``."""
    values, stored = row[:-1], row[-1]
    seq = values[0]
    if stored is None:
        return Broken(seq, "unchained", "it has no hash (it was written outside Agentdesk)")
    try:
        expected = link(prev, values)
    except (TypeError, ValueError):
        return Broken(seq, "altered", "it holds a value of the wrong type (it was changed after it was written)")
    if stored != expected:
        return Broken(seq, "altered", "it does not match its hash (it was changed after it was written)")
    return None


def walk(db: sqlite3.Connection, start: Head | None = None,
         blob_names: dict[str, bool] | None = None, count: bool = True) -> Intact | Broken:
    """Recompute every hash after ``start`` (from the genesis when None). With ``blob_names``
    (name → intact), each file change that kept its contents must name intact blobs. Without
    ``count``, ``entries`` is the newest seq (seqs are dense) instead of a count of the rows,
    which would scan the whole table."""
    prev_seq, prev = (0, GENESIS) if start is None else (start.seq, bytes.fromhex(start.hash))
    checked = 0
    for row in _rows(db, "WHERE seq > ? ORDER BY seq", (prev_seq,)):
        seq = row[0]
        broken = _check(prev, row)
        if broken is not None:
            if seq != prev_seq + 1 and broken.problem == "altered":
                return Broken(prev_seq + 1, "missing", _missing(prev_seq + 1, seq - 1))
            return broken
        if blob_names is not None:
            bad = _bad_blob(row, blob_names)
            if bad is not None:
                return Broken(seq, "blob", f"the contents it names (blob {bad[:12]}) are {_blob_state(bad, blob_names)}")
        prev_seq, prev = seq, row[-1]
        checked += 1
    head = None if prev_seq == 0 else Head(prev_seq, prev.hex())
    return Intact(head, entries=_count(db) if count else prev_seq, checked=checked)


def _bad_blob(row: tuple[Any, ...], names: dict[str, bool]) -> str | None:
    """The first blob this file change names that is missing or corrupt (none unless it kept contents)."""
    kind: str = row[3]
    before: str | None = row[10]
    after: str | None = row[11]
    body: str = row[13]
    if kind != "fs.write":
        return None
    try:
        if json.loads(body).get("stored", True) is False:
            return None
    except (ValueError, AttributeError):
        return None  # the chain already vouches for this body
    for name in (before, after):
        if name is not None and not names.get(name, False):
            return name
    return None


def _missing(first: int, last: int) -> str:
    return f"entry #{first} is missing" if first == last else f"entries #{first}–#{last} are missing"


def _blob_state(name: str, names: dict[str, bool]) -> str:
    return "corrupted" if name in names else "missing"


def blob_health(db: sqlite3.Connection) -> dict[str, bool]:
    """Every stored blob's name → whether its bytes still hash to it."""
    names = [r[0] for r in db.execute("SELECT hash FROM blobs ORDER BY hash")]
    out: dict[str, bool] = {}
    for name in names:
        try:
            blobs.get(db, name, check=True)
            out[name] = True
        except (CorruptBlob, UnknownBlob):  # blobs.get names any damage to a hostile row
            out[name] = False
    return out


def full(db: sqlite3.Connection, recorded: Head | None = None) -> Integrity:
    """The whole chain and every blob, and the chain against a head recorded earlier (if any)."""
    health = blob_health(db)
    result = walk(db, None, health)
    if isinstance(result, Broken):
        return result
    if recorded is not None:
        broken = _against_head(db, recorded, result.upto)
        if broken is not None:
            return broken
    bad = sorted(name for name, ok in health.items() if not ok)
    if bad:  # damaged blobs no entry names (stored directly): still damage
        return Broken(None, "blob", f"blob {bad[0][:12]} is corrupted ({len(bad)} damaged)")
    return Intact(result.head, result.entries, blobs=len(health), checked=result.checked)


def _against_head(db: sqlite3.Connection, recorded: Head, last: int) -> Broken | None:
    """Whether the entry a past check ended on still carries the hash it had then."""
    if last < recorded.seq:
        return Broken(last + 1, "truncated",
                      f"{_missing(last + 1, recorded.seq)} (the ledger was verified up to #{recorded.seq})")
    row = db.execute("SELECT hash FROM entries WHERE seq = ?", (recorded.seq,)).fetchone()
    stored = None if row is None else row[0]
    if not isinstance(stored, bytes) or stored.hex() != recorded.hash:
        return Broken(recorded.seq, "altered",
                      "it no longer carries the hash an earlier check verified (it or an entry before it "
                      "was changed)")
    return None


def since(db: sqlite3.Connection, recorded: Head | None, *, spot_checks: int = SPOT_CHECKS,
          rng: random.Random | None = None) -> Integrity:
    """The quick check at start: the recorded head still holds, the entries after it chain
    from it, and ``spot_checks`` older entries chain from their stored predecessors."""
    if recorded is None:
        return walk(db)
    last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM entries").fetchone()[0]
    broken = _against_head(db, recorded, last)
    if broken is None:
        broken = _spot_check(db, recorded.seq, spot_checks, rng or random.Random())
    if broken is not None:
        return broken
    return walk(db, recorded, count=False)


def _spot_check(db: sqlite3.Connection, upto: int, n: int, rng: random.Random) -> Broken | None:
    """The entry at ``upto`` and ``n`` random entries before it (all of them, when there are no more
    than ``n``) against their predecessors' stored hashes."""
    if upto <= n:
        seqs = list(range(1, upto + 1))
    else:
        seqs = sorted({upto, *(rng.randint(1, upto) for _ in range(n))})
    for seq in seqs:
        pair = list(_rows(db, "WHERE seq <= ? ORDER BY seq DESC LIMIT 2", (seq,)))
        if not pair or pair[0][0] != seq:
            continue  # a missing entry is caught by the walk or the head check
        prev = GENESIS if len(pair) == 1 else pair[1][-1]
        if not isinstance(prev, bytes):
            return Broken(pair[1][0], "unchained", "it has no hash (it was written outside Agentdesk)")
        broken = _check(prev, pair[0])
        if broken is not None:
            return broken
    return None


def _count(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT COUNT(*) FROM entries").fetchone()[0])


# ---- the recorded head -----------------------------------------------------------


def head_path(db_path: str | os.PathLike[str], chain: str = "") -> Path:
    """Where a ledger's verified head is kept: beside it (``ledger.db`` → ``ledger.verified``); ``chain``
    names another chain kept in the same file (the kernel's automation records: ``ledger.automations-verified``)."""
    return Path(db_path).with_suffix(f".{chain}-verified" if chain else ".verified")


def read_head(path: Path) -> Head | None:
    """The head recorded at ``path``; None when there is none or it is unreadable."""
    try:
        data = json.loads(path.read_text(encoding="ascii"))
        seq, digest = data["seq"], data["hash"]
        if isinstance(seq, int) and seq > 0 and isinstance(digest, str) and len(bytes.fromhex(digest)) == 32:
            return Head(seq, digest.lower())
    except (OSError, ValueError, TypeError, KeyError, UnicodeDecodeError):
        pass
    return None


def write_head(path: Path, head: Head) -> None:
    """Record ``head`` atomically (a temporary file renamed over the old one)."""
    fd, tmp = tempfile.mkstemp(prefix=".verified-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as out:
            json.dump({"seq": head.seq, "hash": head.hash}, out)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
