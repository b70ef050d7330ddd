"""How long the desktop takes to open on a ledger of 100,000 entries, and to fetch a page on scroll.

The functional half (one page at open, a page per scroll, every entry reachable)
is tests/desktop/test_ledger_view.py; the wall-clock figures live here, where a
loaded CI machine cannot make them flaky. Goal: open (build the desktop, show
the window with its first page) under 3 s.

Run from the repository root: ``QT_QPA_PLATFORM=offscreen python benchmarks/ledger_view_bench.py [--json]
[--entries N]``. Human-readable lines first; with ``--json`` the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

GOAL_OPEN_S = 3.0


def bulk_ledger(root: Path, n: int) -> None:
    """``n`` tool entries written straight into a fresh ledger's table (what the test builds, too)."""
    from ledger import Ledger

    Ledger(root / "ledger.db").close()
    db = sqlite3.connect(root / "ledger.db")
    now = time.time()
    body = json.dumps({"input": {"path": "x.md"}})
    db.executemany(
        "INSERT INTO entries(seq, ts, actor, kind, version, tool, scope, path, cause, lease, before, after, "
        "reverts, body) VALUES (?, ?, 'a1', 'tool', 1, 'fs_read', 'fs.read', NULL, NULL, NULL, NULL, NULL, NULL, ?)",
        ((i, now - (n - i), body) for i in range(1, n + 1)))
    db.commit()
    db.close()


def measure(n: int, pages: int) -> dict[str, float]:
    from PySide6.QtWidgets import QApplication

    from desktop.app import build_desktop, make_app
    from kernel.config.settings import Settings
    from kernel.core.clock import ManualClock

    app = QApplication.instance() or make_app([])
    with tempfile.TemporaryDirectory(prefix="agentdesk-bench-") as tmp:
        root = Path(tmp) / "home"
        root.mkdir()
        bulk_ledger(root, n)
        started = time.perf_counter()
        desk = build_desktop(root, providers=lambda name: None, clock=ManualClock(), settings=Settings(workspace=tmp))
        desk.window.show()
        app.processEvents()
        opened = time.perf_counter() - started
        model, table = desk.window.ledger_view.model, desk.window.ledger_view.table
        fetches: list[float] = []
        while model.canFetchMore() and len(fetches) < pages:
            t0 = time.perf_counter()
            table.scrollToBottom()
            app.processEvents()
            fetches.append(time.perf_counter() - t0)
        rows = model.rowCount()
        desk.window.hide()
        desk.bridge.close()
        desk.ledger.close()
    return {"entries": n, "open_s": round(opened, 3), "rows_after_scrolls": rows,
            "page_fetch_ms_median": round(statistics.median(fetches) * 1000, 1) if fetches else 0.0,
            "page_fetch_ms_max": round(max(fetches) * 1000, 1) if fetches else 0.0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--pages", type=int, default=20, help="scrolls to time")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = measure(args.entries, args.pages)
    verdict = "ok" if figures["open_s"] < GOAL_OPEN_S else "OVER GOAL"
    print(f"open with {args.entries:,} entries: {figures['open_s']:.3f} s (goal < {GOAL_OPEN_S} s: {verdict})")
    print(f"page fetch on scroll: median {figures['page_fetch_ms_median']} ms, max {figures['page_fetch_ms_max']} ms")
    if args.json:
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
