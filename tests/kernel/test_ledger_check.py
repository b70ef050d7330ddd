"""The kernel checks the ledger's chain when it starts and says what it found through the facade."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kernel.facade import Kernel
from kernel.providers.scripted import ScriptedProvider
from kernel.settings import Settings
from ledger import Broken, Intact, Ledger, ToolCall


def _kernel(path: Path, ws: Path) -> Kernel:
    provider = ScriptedProvider()
    return Kernel(ledger=Ledger(path), settings=Settings(user_name="Ada", workspace=str(ws)),
                  providers=lambda _name: provider)


def test_a_fresh_ledger_is_verified_at_start(tmp_path: Path) -> None:
    kernel = _kernel(tmp_path / "ledger.db", tmp_path)
    assert kernel.ledger_integrity() == Intact(None, entries=0)
    kernel.ledger.close()


def test_start_verifies_what_was_added_since_the_last_start(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with Ledger(path) as ledger:
        for _ in range(5):
            ledger.append(ToolCall(actor="a", tool="t", scope="s"))
    first = _kernel(path, tmp_path)
    assert isinstance(first.ledger_integrity(), Intact) and first.ledger_integrity().checked == 5  # type: ignore[union-attr]
    first.ledger.append(ToolCall(actor="a", tool="t", scope="s"))
    first.ledger.close()
    second = _kernel(path, tmp_path)
    result = second.ledger_integrity()
    assert isinstance(result, Intact) and (result.upto, result.checked) == (6, 1)
    second.ledger.close()


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
    kernel = _kernel(path, tmp_path)
    result = kernel.ledger_integrity()
    assert isinstance(result, Broken) and (result.seq, result.problem) == (5, "altered")
    kernel.ledger.close()
