"""The status line while the kernel is still checking the ledger (it serves first, issue 28) and while the
desktop is still connecting to it: words, never a verdict not yet reached."""

from __future__ import annotations

from kernel.api import ChainIntact, Checking, Intact

from desktop.status import StatusCounts


def test_the_footer_says_checking_until_both_checks_answered_and_connecting_until_attached() -> None:
    counts = StatusCounts(ledger_check=Checking("ledger", 0.0), automation_check=Checking("automation records", 0.0),
                          connecting=True)
    assert counts.footer().endswith("checking the ledger\u2026 \u00b7 connecting to the kernel\u2026")
    assert "still" not in counts.ledger_check_text() and "checking" in counts.ledger_check_text()
    counts.connecting, counts.ledger_check = False, Intact(None, entries=0)
    assert counts.footer().endswith("checking the ledger\u2026 \u00b7 kernel attached")  # the automation records
    counts.automation_check = ChainIntact(rows=2)
    assert counts.footer().endswith("ledger verified \u00b7 kernel attached")
