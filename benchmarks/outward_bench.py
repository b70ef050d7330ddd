"""Exactly-once bookkeeping for outward calls: what it costs a send, and what the mail tools cost to load.

1. ``OutwardBook.once`` scans the ``intent`` entries for the call's key
   before acting (intents are rare: one per mail sent or event created).
   This times that lookup, plus recording intent and outcome, in a ledger
   holding N intents among 10 times as many other entries.
2. Import time of ``kernel.mail.tools`` in a fresh interpreter (a home with
   no account never imports it) and of ``caldav`` (imported on the first
   calendar call only).

Run: ``python benchmarks/outward_bench.py``. Goal: the bookkeeping stays far
below a network round trip (tens of ms) per send. The keys are read from the
ledger once per kernel (a scan of the intents), then looked up in memory.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))


def lookup(n: int) -> tuple[float, float]:
    from kernel.core.clock import ManualClock
    from kernel.tools.outward import OutwardBook
    from kernel.tools.descriptor import ToolContext
    from ledger import Intent, Ledger, ToolResult

    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger(Path(tmp) / "ledger.db")
        for i in range(n):
            ledger.append_many([ToolResult(actor="a-1", cause=None, output=None)] * 10
                               + [Intent(actor="a-1", tool="mail_send", key=f"k{i}", target=f"<{i}@x>")])
        book = OutwardBook(ledger)
        ctx = ToolContext("a-1", None, ledger, 0, ManualClock(), call_id="c", turn=1)  # type: ignore[arg-type]

        async def act(key: str) -> dict:
            return {"ok": True}

        async def verify(intent) -> bool:
            return False

        def one(r: int) -> float:
            started = time.perf_counter()
            asyncio.run(book.once(ctx, "mail_send", {"to": [f"r{r}@x"]}, lambda k: "<t@x>", act, verify))
            return (time.perf_counter() - started) * 1000

        first = one(0)
        rest = sorted(one(r) for r in range(1, 21))
        ledger.close()
        return first, rest[len(rest) // 2]


def import_ms(module: str) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print((time.perf_counter() - t) * 1000)"
    base = "import kernel.facade"
    out = subprocess.run([sys.executable, "-c", f"{base}; {code}"], capture_output=True, text=True, cwd=HERE,
                         check=True)
    return float(out.stdout.strip())


def main() -> None:
    for n in (100, 1_000, 10_000):
        first, median = lookup(n)
        print(f"once() with {n:>6,} past intents: first send {first:7.2f} ms (reads the keys), then "
              f"{median:5.2f} ms median (lookup + intent + outcome, asyncio.run included)")
    for module in ("kernel.mail.tools", "caldav", "aiosmtplib"):
        print(f"import {module:<18} after the kernel: {import_ms(module):6.1f} ms")


if __name__ == "__main__":
    main()
