"""``agentdesk ledger``: print the newest ledger entries, filtered, as a table or JSON lines.

``agentdesk ledger verify`` checks the hash chain instead (see ledger_verify).

JSON lines carry each entry's own fields (seq, ISO 8601 UTC ts, actor, kind,
blob hashes, cause and lease seqs; see ``Entry.to_json``) plus ``undone_by``, the undo entry that currently has a file
change undone, derived from the ledger rather than stored in it.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from typing import Any

from ledger import KINDS, Entry, FileChange, LeaseGrant, Ledger, LedgerError, ToolCall, Undo, iso_utc

from ..leases.lease import describe_duration
from ..core.words import plural

from . import EXIT_USAGE, ledger_verify
from ._home_ledger import EXIT_ERROR, absolute_prefix, ledger_path, open_existing, say_error

DEFAULT_LIMIT = 50


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("ledger", help="show the ledger, newest first (or verify it)",
                              description="Show ledger entries, newest first; 'verify' checks the hash chain "
                                          "and the blobs (exit 0 intact, 6 broken).")
    p.add_argument("action", nargs="?", choices=("verify",),
                   help="verify: check every entry's hash and every blob")
    p.add_argument("--actor", metavar="A", help="only entries by this actor (agent id, user, outside, kernel)")
    p.add_argument("--kind", metavar="K", choices=KINDS, help="only entries of this kind: " + ", ".join(KINDS))
    p.add_argument("--path", metavar="P", help="only entries whose path is P or under the folder P")
    p.add_argument("--limit", metavar="N", type=_positive, default=DEFAULT_LIMIT,
                   help=f"at most N entries (default {DEFAULT_LIMIT})")
    p.add_argument("--json", action="store_true", help="one JSON object per line")


def run(args: argparse.Namespace) -> int:
    if args.action == "verify":
        if args.actor or args.kind or args.path or args.json or args.limit != DEFAULT_LIMIT:
            print("agentdesk ledger verify: filters do not apply (it checks the whole ledger)", file=sys.stderr)
            return EXIT_USAGE
        return ledger_verify.run()
    try:
        ledger = open_existing()
        if ledger is None:
            print(f"No ledger yet at {ledger_path()}.", file=sys.stderr)
            return 0
        with ledger:
            broken = ledger_verify.warning(ledger.check_at_start())  # never show a forged history without a word
            path = None if args.path is None else absolute_prefix(args.path)
            entries = under_path(ledger, args.actor, args.kind, path, args.limit)
            undone = ledger.undone_by([e.seq for e in entries if isinstance(e, FileChange)])
    except (LedgerError, sqlite3.Error, OSError) as exc:
        say_error("ledger", exc)
        return EXIT_ERROR
    if broken:
        print(broken, file=sys.stderr)
    lines = [json.dumps(as_json(e, undone), ensure_ascii=False) for e in entries] if args.json \
        else table(entries, undone)
    if lines:
        print("\n".join(lines))
    return 0


def under_path(ledger: Ledger, actor: str | None, kind: str | None, path: str | None, limit: int) -> list[Entry]:
    """The newest ``limit`` entries (of ``actor``, ``kind``) whose path is ``path`` or under it: ``notes/no``
    matches ``notes/no`` and ``notes/no/x``, never ``notes/notes.md``. The ledger's own filter is a string
    prefix, so its pages are read newest first and the other paths passed over."""
    if path is None or path.endswith("/"):
        return ledger.page(actor=actor, kind=kind, path=path, limit=limit)
    out: list[Entry] = []
    before: int | None = None
    while len(out) < limit:
        page = ledger.page(actor=actor, kind=kind, path=path, before=before, limit=max(limit, 200))
        out += [e for e in page if _path_of(e) == path or _path_of(e).startswith(path + "/")]
        if len(page) < max(limit, 200):
            break
        before = page[-1].seq
    return out[:limit]


def _path_of(entry: Entry) -> str:
    found = getattr(entry, "path", None)
    return found if isinstance(found, str) else ""


def as_json(entry: Entry, undone: dict[int, int]) -> dict[str, Any]:
    out = entry.to_json()
    out["undone_by"] = undone.get(entry.seq)
    return out


def table(entries: list[Entry], undone: dict[int, int]) -> list[str]:
    """Readable rows: seq, UTC time, actor, kind, and what happened."""
    if not entries:
        return ["(no entries)"]
    rows = [("SEQ", "TIME (UTC)", "ACTOR", "KIND", "WHAT")]
    for e in entries:
        rows.append((str(e.seq), iso_utc(e.ts)[:19].replace("T", " "), e.actor, e.KIND, summary(e, undone)))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return ["  ".join(cell.ljust(w) for cell, w in zip(r[:4], widths)) + "  " + r[4] for r in rows]


def summary(entry: Entry, undone: dict[int, int]) -> str:
    """One short phrase for an entry."""
    match entry:
        case FileChange():
            verb = "create" if entry.before is None else "delete" if entry.after is None else "modify"
            text = f"{verb} {entry.path}"
            if entry.reverts is not None:
                text += f" (reverts #{entry.reverts})"
            if entry.seq in undone:
                text += f" [undone by #{undone[entry.seq]}]"
            return text
        case ToolCall():
            args = json.dumps(dict(entry.input), ensure_ascii=False)
            return f"{entry.tool} {_clip(args, 80)}"
        case LeaseGrant():
            return (f"{entry.scope} for {entry.subject}, {describe_duration(entry.duration_s).lower()} "
                    f"(until {iso_utc(entry.until)})")
        case Undo():
            return (f"undo after #{entry.after_seq}" + (f" of {entry.only_actor}" if entry.only_actor else "")
                    + f": {len(entry.reversed):,} reversed, {plural(len(entry.conflicts), 'conflict')}")
        case _:
            fields = {k: v for k, v in entry.to_json().items() if k not in ("seq", "ts", "actor", "kind")}
            return _clip(" ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in fields.items()
                                  if v not in (None, "", {}, [])), 100)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
