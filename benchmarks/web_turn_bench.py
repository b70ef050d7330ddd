"""Peak memory of eleven hostile ``web_fetch`` calls in one agent turn, with and without the turn's budget.

A loopback HTTP server serves a hostile page: the per-call size cap's worth of
HTML made of nothing but links, the kind that makes the HTML-to-Markdown
conversion hold the most memory per byte. The size cap is 512 KiB here (the
default is 2 MiB; one such page of 2 MiB takes ~55 s to convert on the
machine this was measured on, too slow to run eleven times). Eleven ``web_fetch`` calls of one turn run side by side, as the
executor runs reads. Each mode runs in a fresh process whose peak RSS
(``ru_maxrss``) is printed, with the body bytes read over the turn:

- ``per call``: only each call's size cap (the tool without a turn, as before issue 23);
- ``per turn``: the turn's budget, ``TURN_CALLS`` size caps over all its fetches (kernel/tools/web/tools.py).

Run: ``.venv/bin/python benchmarks/web_turn_bench.py [calls]``. It also fetches one 2 MiB page
(the default size cap) of links and one of a wide table, each in its own process.

Measured 2026-12-03 on the shared 2-core machine (load 9 to 20, so the seconds are loose):

| case | before (8652b58) | markup bounded (``web/bound.py``) |
|---|---|---|
| one 2 MiB links page | 289 MB, 84 s | 139 MB, 27 s (cut at 20,000 of 70,647 elements) |
| one 2 MiB table page | 426 MB, 211 s | 114 MB, 21 s (cut at 20,000 of 194,819 elements) |
| 11 calls, per call | 150 MB, 323 s | 157 MB, 296 s |
| 11 calls, per turn | 111 MB, 138 s, 0 refused | 139 MB, 88 s, 5 of 11 refused (budget) |

Converting in a thread per call (``asyncio.to_thread``) had put the 11-call figures at 352 and
266 MB (each thread's malloc arena kept its conversion's memory): conversions run in one thread.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CALLS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 11
CAP = 512 * 1024  # the per-call size cap (Settings → Web) the fetches run under
NOTE = re.compile(r"\[[\d,]+ attribute values? longer")  # what bounding the markup dropped, in words


def hostile_page(size: int, kind: str = "links") -> bytes:
    """``size`` bytes of HTML that is nothing but links, or one wide table: the kinds whose HTML-to-Markdown
    conversion held the most per byte before it was bounded (one 2 MiB page: links 322 MB peak and 55 s, a
    wide table 439 MB and 104 s, long attributes 192 MB, deep nesting 48 MB)."""
    if kind == "table":
        row = "<tr>" + "".join(f"<td>{j}</td>" for j in range(50)) + "</tr>"
        return ("<html><body><table>" + row * (size // len(row) + 1)).encode()[:size]
    links = "".join(f'<a href="/p/{i}">l{i}</a> ' for i in range(size // 20 + 1))
    return ("<html><body>" + links).encode()[:size]


def serve(page: bytes) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the standard library's name
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/page"


def child(mode: str) -> None:
    """One mode, in this process: the fetches, then what was read, the seconds and the peak RSS, as JSON.
    ``per call`` / ``per turn``: CALLS fetches of a CAP-sized links page; ``one <kind>``: one fetch of a
    2 MiB (the default size cap) page of that kind."""
    from kernel.config.settings import Settings
    from kernel.tools.descriptor import ToolContext
    from kernel.tools.web.tools import web_fetch_tool
    from ledger import Ledger

    one = mode.startswith("one ")
    cap = 2 * 1024 * 1024 if one else CAP
    calls = 1 if one else CALLS
    # the time cap at its most: a conversion holds the loop, and the other calls must not be cut for time
    settings = replace(Settings(), web_allow_private=True, web_fetch_max_bytes=cap, web_fetch_timeout_s=600.0)
    server, url = serve(hostile_page(settings.web_fetch_max_bytes, mode.split()[1] if one else "links"))
    tool = web_fetch_tool(lambda: settings)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, Ledger(Path(tmp) / "ledger.db") as ledger:
        ctx = None if mode == "per call" else ToolContext(agent_id="a1", workspace=None, ledger=ledger,  # type: ignore[arg-type]
                                                          cause=0, clock=None, turn=1)  # type: ignore[arg-type]

        async def turn() -> list[object]:
            return await asyncio.gather(*(tool.run(ctx, {"url": url}) for _ in range(calls)),  # type: ignore[arg-type]
                                        return_exceptions=True)

        got = asyncio.run(turn())
    seconds = time.monotonic() - started
    server.shutdown()
    read = sum(r.data["bytes"] for r in got if hasattr(r, "data"))
    refused = sorted(str(getattr(r, "kind", type(r).__name__)) for r in got if isinstance(r, BaseException))
    notes = [line for r in got if hasattr(r, "content") for line in r.content.splitlines()
             if line.startswith(("[cut", "[not converted")) or NOTE.match(line)]
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"read": read, "refused": refused, "peak_mb": peak_kb / 1024, "seconds": seconds,
                      "notes": notes}))


def main() -> None:
    def run(mode: str) -> dict[str, Any] | None:
        out = subprocess.run([sys.executable, __file__, "--child", mode, str(CALLS)], capture_output=True, text=True,
                             cwd=ROOT, timeout=900)
        if out.returncode != 0:
            print(f"  {mode:10}: failed: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else out.returncode}")
            return None
        r: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
        return r

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("one web_fetch of a hostile 2 MiB HTML page (the default size cap)")
    for kind in ("links", "table"):
        if (r := run(f"one {kind}")) is not None:
            print(f"  {kind:10}: peak RSS {r['peak_mb']:6.0f} MB, {r['seconds']:6.1f} s; " + " ".join(r["notes"]))
    print(f"{CALLS} web_fetch calls of hostile HTML in one turn ({CAP // 1024} KiB size cap per call)")
    for mode in ("per call", "per turn"):
        if (r := run(mode)) is not None:
            why = f" ({', '.join(sorted(set(r['refused'])))})" if r["refused"] else ""
            print(f"  {mode:10}: peak RSS {r['peak_mb']:6.0f} MB, {r['seconds']:6.1f} s, {r['read'] / 2**20:5.1f} MiB "
                  f"read, {len(r['refused'])} of {CALLS} refused{why}")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        CALLS = int(sys.argv[3]) if len(sys.argv) > 3 else CALLS  # noqa: F811 - the parent's count
        child(sys.argv[2])
    else:
        main()
