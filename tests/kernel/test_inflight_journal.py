"""The journal of requests in flight (kernel/agents/inflight.py) is hostile input at start: what cannot be
read is dropped, what can is recorded once as a cancelled request with its tokens, and the file goes."""

from __future__ import annotations

import json
import stat

from kernel.accounting.budget import Usage
from kernel.agents.inflight import InFlight, InFlightJournal
from ledger import Ledger


def test_a_request_left_in_flight_is_recorded_once_and_a_hostile_line_is_dropped(tmp_path):
    with Ledger(tmp_path / "ledger.db") as ledger:
        journal = InFlightJournal.beside(ledger)
        assert journal.path == tmp_path / "ledger.inflight.json"
        journal.report(InFlight("a1", "user-turn", "anthropic", "m", 10.0), Usage(1200, 3))
        journal.report(InFlight("a2", "user-turn", "anthropic", "m", 11.0), Usage(7, 1))
        journal.done("a2")  # recorded normally: nothing left of it
        assert stat.S_IMODE(journal.path.stat().st_mode) == 0o600
        lines = json.loads(journal.path.read_text())
        lines += [{"agent": "a3", "reason": "x", "provider": "p", "model": "m", "start": 1, "input_tokens": -5,
                   "output_tokens": 0, "cache_read_tokens": 0, "cache_write_tokens": 0}, "junk", None]
        journal.path.write_text(json.dumps(lines))
        assert InFlightJournal.beside(ledger).record_cut(ledger) == 1
        [cut] = ledger.page(kind="request")
        assert (cut.actor, cut.status, cut.input_tokens, cut.output_tokens) == ("a1", "cancelled", 1200, 3)
        assert not journal.path.exists()
        assert InFlightJournal.beside(ledger).record_cut(ledger) == 0  # once
        journal.path.write_text("{not json")
        assert InFlightJournal.beside(ledger).record_cut(ledger) == 0 and not journal.path.exists()
