"""How long the kernel takes to check a schedule (400 days of real fire times) and to claim slots.

    python benchmarks/automations_bench.py

Prints the check time of a few schedules (an hourly cron is the most fires the
check walks) and the claims per second of two stores racing for the same
1,000 slots on one file, with how many each won (the sum must be 1,000).
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernel.automations.schedule import Schedule, ScheduleRefused  # noqa: E402
from kernel.automations.store import AutomationStore  # noqa: E402

SLOTS = 1000


def check_times() -> None:
    now = time.time()
    for text in ("0 * * * *", "0 7 * * 1-5", "every 1h", "*/30 * * * *"):
        start = time.perf_counter()
        try:
            Schedule(text, "Europe/Berlin").check(now)
            verdict = "allowed"
        except ScheduleRefused:
            verdict = "refused"
        print(f"check {text!r:16} {verdict:8} {(time.perf_counter() - start) * 1000:8.1f} ms")


def claim_race() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "ledger.db")
        stores = [AutomationStore(path), AutomationStore(path)]
        wins = [0, 0]

        def race(i: int) -> None:
            order = range(SLOTS) if i == 0 else reversed(range(SLOTS))
            for slot in order:
                if stores[i].claim("a", float(slot), 0, f"w{i}", 0.0):
                    wins[i] += 1

        start = time.perf_counter()
        threads = [threading.Thread(target=race, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - start
        print(f"claims: {2 * SLOTS} attempts in {elapsed * 1000:.0f} ms ({2 * SLOTS / elapsed:,.0f}/s); "
              f"won {wins[0]} + {wins[1]} = {sum(wins)} of {SLOTS} slots")
        for s in stores:
            s.close()


if __name__ == "__main__":
    check_times()
    claim_race()
