"""``agentdesk undo``: reverse file changes after a seq, as the user, and say what happened to each file.

Exit status: 0 when every change was reversed, 5 when some files were
conflicts (left untouched, each listed with who changed it), 2 on bad usage
(an unknown seq, no ledger yet), 1 when the ledger cannot be read.
"""

from __future__ import annotations

import argparse
import sqlite3
from typing import Any

from ledger import USER, LedgerError, Step, UndoReport, UnknownSeq

from ..core.words import plural

from . import EXIT_USAGE
from ._home_ledger import EXIT_ERROR, ledger_path, open_existing, say_error

EXIT_CONFLICTS = 5


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("undo", help="reverse file changes after a ledger seq",
                              description="Reverse every file change after SEQ, newest first.")
    p.add_argument("--after", metavar="SEQ", type=int, required=True, help="undo changes strictly after this seq")
    p.add_argument("--actor", metavar="A", help="only changes made by this actor")
    p.add_argument("--dry-run", action="store_true", help="list what would be reversed, change nothing")


def run(args: argparse.Namespace) -> int:
    try:
        ledger = open_existing()
        if ledger is None:
            say_error("undo", f"no ledger yet at {ledger_path()}: nothing to undo")
            return EXIT_USAGE
        with ledger:
            report = ledger.undo(args.after, by=USER, only_actor=args.actor, dry_run=args.dry_run)
    except UnknownSeq as exc:
        say_error("undo", exc)
        return EXIT_USAGE
    except (LedgerError, sqlite3.Error, OSError) as exc:
        say_error("undo", exc)
        return EXIT_ERROR
    print("\n".join(describe(report)))
    return EXIT_CONFLICTS if report.conflicts else 0


def describe(report: UndoReport) -> list[str]:
    """The report a person reads: a headline, then one line per file."""
    files = _by_file(report.steps)
    who = "" if not report.steps else f" ({plural(len(report.steps), 'change')})"
    if not files and not report.conflicts:
        return [f"Nothing to undo after #{report.after}."]
    if report.dry_run:
        head = f"Would undo {plural(len(files), 'file')} after #{report.after}{who}:"
    else:
        head = f"Undid {plural(len(files), 'file')} after #{report.after}{who} as undo #{report.undo_seq}:"
    lines = [head]
    for path, steps in files.items():
        seqs = ", ".join(f"#{s.change.seq}" for s in steps)
        lines.append(f"  {_net_action(steps):<8} {path}  (reverses {seqs})")
    for c in report.conflicts:
        lines.append(f"  {'conflict':<8} {c.path}  ({c.reason}; left untouched)")
    if report.conflicts:
        lines.append(f"{plural(len(report.conflicts), 'file')} in conflict, not changed.")
    return lines


def _by_file(steps: tuple[Step, ...]) -> dict[str, list[Step]]:
    out: dict[str, list[Step]] = {}
    for step in steps:  # newest first
        out.setdefault(step.path, []).append(step)
    return dict(sorted(out.items()))


def _net_action(steps: list[Step]) -> str:
    """What the file goes through overall: from what it holds now to what it held at the point."""
    newest, oldest = steps[0], steps[-1]
    now = newest.change.after if newest.landed else newest.change.before
    then = oldest.restore
    if now == then:
        return "keep"
    if then is None:
        return "delete"
    return "create" if now is None else "restore"
