"""The kernel checks the ledger's chain when it starts and says what it found through the facade."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kernel.facade import Kernel
from kernel.compose import build_kernel
from kernel.providers.scripted import ScriptedProvider
from kernel.config.settings import Settings
from ledger import Broken, Intact, Ledger, ToolCall


def _kernel(ledger: Ledger, ws: Path) -> Kernel:
    provider = ScriptedProvider()
    return build_kernel(ledger=ledger, settings=Settings(user_name="Ada", workspace=str(ws)),
                  providers=lambda _name: provider)


def test_a_fresh_ledger_is_verified_at_start(tmp_path: Path) -> None:
    with Ledger(tmp_path / "ledger.db") as ledger:
        kernel = _kernel(ledger, tmp_path)
        assert kernel.ledger.integrity() == Intact(None, entries=0)


def test_start_verifies_what_was_added_since_the_last_start(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with Ledger(path) as ledger:
        for _ in range(5):
            ledger.append(ToolCall(actor="a", tool="t", scope="s"))
    with Ledger(path) as ledger:
        first = _kernel(ledger, tmp_path)
        assert isinstance(first.ledger.integrity(), Intact) and first.ledger.integrity().checked == 5  # type: ignore[union-attr]
        ledger.append(ToolCall(actor="a", tool="t", scope="s"))
    with Ledger(path) as ledger:
        result = _kernel(ledger, tmp_path).ledger.integrity()
    assert isinstance(result, Intact) and (result.upto, result.checked) == (6, 1)


def test_a_tampered_ledger_is_reported_broken_at_start(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with Ledger(path) as ledger:
        for _ in range(5):
            ledger.append(ToolCall(actor="a", tool="t", scope="s"))
    raw = sqlite3.connect(path)
    raw.execute("DROP TRIGGER entries_no_update")
    raw.execute("UPDATE entries SET actor = 'mallory' WHERE seq = 5")
    raw.commit()
    raw.close()
    with Ledger(path) as ledger:
        result = _kernel(ledger, tmp_path).ledger.integrity()
    assert isinstance(result, Broken) and (result.seq, result.problem) == (5, "altered")
