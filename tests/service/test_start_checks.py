"""The kernel serves first and checks after (issue 28): until the checks at start answer, the desks say
``Checking``, undo and Run now are refused with a sentence, and the scheduler waits; then the results arrive
with a ``StartChecked`` event, a tampered ledger is still reported broken, and kernel.log gets one line."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from kernel.api import Checking, KernelError, StartChecked
from kernel.automations import Automation, ScheduleRefused
from kernel.automations.chain import ChainIntact
from kernel.compose import build_kernel
from kernel.config.settings import Settings
from kernel.providers.scripted import ScriptedProvider
from kernel.service.start_checks import CHECKED, check_after_serving
from ledger import Broken, Intact, Ledger, ToolCall


def _tampered(path: Path) -> None:
    with Ledger(path) as ledger:
        for _ in range(5):
            ledger.append(ToolCall(actor="a", tool="t", scope="s"))
    raw = sqlite3.connect(path)
    raw.execute("DROP TRIGGER entries_no_update")
    raw.execute("UPDATE entries SET actor = 'mallory' WHERE seq = 3")
    raw.commit()
    raw.close()


def test_until_the_checks_answer_the_kernel_says_checking_and_refuses_what_writes_from_the_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ledger.db"
    _tampered(path)
    ws = tmp_path / "ws"
    ws.mkdir()

    async def body() -> tuple[list[object], object, object]:
        with Ledger(path) as ledger:
            kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws)),
                                  providers=lambda _n: ScriptedProvider(), check_later=True)
            seen: list[object] = []
            kernel.subscribe(seen.append)
            automation = kernel.automations.add(Automation(id="", name="Digest", objective="o",
                                                           schedule="0 * * * *", workspace=str(ws)))
            assert isinstance(kernel.ledger.integrity(), Checking)
            assert isinstance(kernel.automations.integrity(), Checking)
            with pytest.raises(KernelError, match="still being checked"):
                kernel.ledger.undo(0)
            assert kernel.ledger.undo(0, dry_run=True) is not None  # a dry run only reads: allowed
            with pytest.raises(ScheduleRefused, match="still being checked"):
                kernel.automations.run_now(automation.id)
            agent = kernel.agents.spawn("meanwhile", workspace=str(ws))  # what a person does: served
            await check_after_serving(kernel, ledger.path)
            try:
                return [e for e in seen if isinstance(e, StartChecked)], kernel.ledger.integrity(), \
                    (kernel.automations.integrity(), agent)
            finally:
                await kernel.automations.stop()
                await kernel.aclose()

    checked, ledger_found, (chain_found, _agent) = asyncio.run(body())
    assert checked == [StartChecked("ledger"), StartChecked("automation records")]
    assert isinstance(ledger_found, Broken) and ledger_found.seq == 3  # found as the check before serving found it
    assert isinstance(chain_found, ChainIntact)
    said = capsys.readouterr().err
    assert f"{CHECKED} the ledger is BROKEN at #3" in said and "the automation records are intact" in said


def test_a_never_verified_home_is_checked_after_serving_and_its_head_recorded(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    with Ledger(path) as ledger:
        for _ in range(40):
            ledger.append(ToolCall(actor="a", tool="t", scope="s"))
    ledger.head_path.unlink(missing_ok=True)  # never verified (a first start after an upgrade)

    async def body() -> object:
        with Ledger(path) as ledger:
            kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(tmp_path)),
                                  providers=lambda _n: ScriptedProvider(), check_later=True)
            ledger.append(ToolCall(actor="b", tool="t", scope="s"))  # the kernel writes while it checks
            await check_after_serving(kernel, ledger.path)
            await kernel.automations.stop()
            await kernel.aclose()
            return kernel.ledger.integrity()

    found = asyncio.run(body())
    assert isinstance(found, Intact) and found.upto >= 40
    assert Ledger(path).head_path.exists()  # the next start walks only what came after
