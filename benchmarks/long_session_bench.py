"""The 300-turn session of issue 24 on all four protocols, through the real SDKs to the strict loopback fake.

    python benchmarks/long_session_bench.py [TURNS]

300 model turns (100 user messages, each a write, an outward call and an answer) with six compactions
forced by scripted usage, one kernel in this process per protocol (tests/kernel/long_session.py). For
each protocol it prints the time taken and every promise the wire and the record show broken (none is
the goal): orphaned calls or results refused by the fake, a changed system prompt or AGENTS.md, a
frontier missing a write or an outward call since the user's last message, a compaction later than the
request after the threshold was crossed, two compactions back to back, leases not as granted. The test
suite runs the same session shortened to 42 turns (tests/kernel/test_long_session.py): this one takes
too long for it.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernel.core.clock import ManualClock  # noqa: E402
from ledger import Ledger  # noqa: E402
from tests.fakes import FakeProviderServer  # noqa: E402
from tests.kernel.long_session import Plan, Session, check, drive, script  # noqa: E402
from tests.kernel.test_hostile_arguments import _adapter  # noqa: E402

PROTOCOLS = ("anthropic", "openai", "openai-chat", "gemini")


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    plan = Plan(turns=turns, compactions=6)
    failed = False
    with FakeProviderServer() as srv, tempfile.TemporaryDirectory() as tmp:
        for name in PROTOCOLS:
            since = (len(srv.requests), len(srv.refused))
            script(srv, plan)
            ws = Path(tmp) / name / "ws"
            ws.mkdir(parents=True)
            clock = ManualClock()
            with Ledger(Path(tmp) / name / "ledger.db", clock=clock.now) as ledger:
                async def go() -> Session:
                    provider = _adapter(name, srv)
                    try:
                        return await drive(provider, ledger, ws, clock, plan)
                    finally:
                        await provider.aclose()

                start = time.perf_counter()
                session = asyncio.run(go())
                took = time.perf_counter() - start
                problems = check(srv, since, ledger, session, plan)
            sent = len(srv.requests) - since[0]
            print(f"{name:12s} {plan.turns} turns, {sent} requests ({sent - plan.turns} summaries) in {took:5.1f} s "
                  f"({took / sent * 1000:.0f} ms a request), load {os.getloadavg()[0]:.1f}: "
                  f"{'every promise kept' if not problems else f'{len(problems)} broken'}", flush=True)
            for p in problems:
                print(f"    {p}")
            failed = failed or bool(problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
