"""The status line says whether the ledger checked out at start: "ledger verified", or red "ledger broken at #N";
and red "automation records broken" when the automation records' own chain did not."""

from __future__ import annotations

import pytest

import asyncio
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from desktop.app import build_desktop
from desktop.status import StatusCounts
from kernel.automations import Automation
from kernel.automations.chain import ChainBroken, ChainIntact
from kernel.automations.store import AutomationStore
from kernel.core.clock import ManualClock
from kernel.config.settings import Settings
from ledger import Broken, Head, Intact, Ledger, ToolCall
from tests.service.attached import quit_desktop


@contextmanager
def desktop_on(home: Path, workspace: Path, qtbot) -> Iterator[Any]:
    """The desktop on ``home`` (its kernel in this process), closed again afterwards."""
    desk = build_desktop(home, providers=lambda name: None, clock=ManualClock(),
                         settings=Settings(workspace=str(workspace)))
    qtbot.addWidget(desk.window)
    try:
        yield desk
    finally:
        quit_desktop(desk, qtbot)  # the kernel stops, its windows close
        desk.ledger.close()


def test_footer_words_for_each_result() -> None:
    counts = StatusCounts(ledger_entries=1_200, ledger_check=Intact(Head(1_200, "00" * 32), 1_200), now=lambda: 0.0)
    assert counts.footer() == "tokens today 0 · ledger 1,200 entries · ledger verified · kernel attached"
    assert "checked out up to #1,200" in counts.ledger_check_text()
    counts.ledger_check = Broken(17, "altered", "it does not match its hash <b>")
    assert counts.footer() == "tokens today 0 · ledger 1,200 entries · \u26a0 ledger broken at #17 · kernel attached"
    html = counts.footer_html()
    assert '<span style="color:' in html and "ledger broken at #17</span>" in html
    assert counts.ledger_check_text().startswith("The ledger is broken at #17: it does not match its hash <b>.")
    counts.ledger_check = Broken(None, "blob", "blob 0123 is corrupted")
    assert "\u26a0 ledger broken ·" in counts.footer()


def test_footer_words_for_broken_automation_records() -> None:
    counts = StatusCounts(ledger_entries=3, ledger_check=Intact(Head(3, "00" * 32), 3), now=lambda: 0.0,
                          automation_check=ChainIntact(4))
    assert "ledger verified" in counts.footer() and "automation" not in counts.tooltip()
    counts.automation_check = ChainBroken("automation_runs", 2, "the row or its chain link #5 was changed <i>")
    assert counts.footer() == "tokens today 0 · ledger 3 entries · \u26a0 automation records broken · kernel attached"
    assert "automation records broken</span>" in counts.footer_html() and "color:" in counts.footer_html()
    assert ("The automation records are broken at automation_runs row 2: the row or its chain link #5 was "
            "changed <i>. Run 'agentdesk ledger verify'") in counts.tooltip()


@pytest.mark.in_process  # a home prepared in this process, opened in process
def test_desktop_on_a_home_with_forged_automation_records_says_so(tmp_path: Path, qloop, qtbot) -> None:
    home = tmp_path / "home"
    Ledger(home / "ledger.db").close()
    store = AutomationStore(str(home / "ledger.db"))
    store.record(1.0, Automation(id="a1", name="Digest", objective="o", schedule="every 1h"), "create", "user")
    store.close()
    raw = sqlite3.connect(home / "ledger.db")
    raw.execute("DROP TRIGGER automation_events_no_update")
    raw.execute("UPDATE automation_events SET actor = 'mallory'")
    raw.commit()
    raw.close()
    with desktop_on(home, tmp_path, qtbot) as desk:
        footer = desk.window.status.footer
        assert "automation records broken" in footer.text() and "color:" in footer.text()
        assert "automation records are broken at automation_events row 1" in footer.toolTip()


@pytest.mark.in_process  # a home prepared in this process, opened in process
def test_desktop_on_a_tampered_home_shows_the_broken_entry(tmp_path: Path, qloop, qtbot) -> None:
    home = tmp_path / "home"
    with Ledger(home / "ledger.db") as ledger:
        for _ in range(3):
            ledger.append(ToolCall(actor="a", tool="t", scope="s"))
    raw = sqlite3.connect(home / "ledger.db")
    raw.execute("DROP TRIGGER entries_no_update")
    raw.execute("UPDATE entries SET scope = 'forged' WHERE seq = 2")
    raw.commit()
    raw.close()
    with desktop_on(home, tmp_path, qtbot) as desk:
        footer = desk.window.status.footer
        assert "ledger broken at #2" in footer.text() and "color:" in footer.text()
        assert footer.toolTip().startswith("The ledger is broken at #2:")


def test_desktop_on_an_intact_home_says_verified(main) -> None:
    assert "ledger verified" in main.window.status.footer.text()
    assert "color:" not in main.window.status.footer.text()


def test_the_sandbox_mode_comes_from_the_kernel_into_the_tooltip(main) -> None:
    main.window.probe_sandbox_mode()  # as the desktop does at start
    main.until(lambda: main.window.status.counts.sandbox is not None)
    tip = main.window.status.footer.toolTip()
    assert "Sandbox: overlay (user-namespace mount)." in tip and "captured exactly" in tip
    assert main.window.statusBar().currentMessage() == ""  # an overlay needs no notice
    dialog = main.window.open_settings()  # and in Settings, beside the folders commands may read (keyboard too)
    try:
        assert "captured by: overlay (user-namespace mount)." in dialog.read_only_note.text()
    finally:
        dialog.reject()


@pytest.mark.in_process  # a home prepared in this process, opened in process
def test_a_fallback_to_snapshots_is_said_once_with_its_reason(tmp_path: Path, qloop, qtbot) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / ".agentdesk-overlay").write_text("a file where the staging folder would go")
    with desktop_on(tmp_path / "home", ws, qtbot) as desk:
        asyncio.ensure_future(desk.window.show_sandbox_mode())
        qtbot.waitUntil(lambda: desk.window.status.counts.sandbox is not None, timeout=10000)
        notice = desk.window.statusBar().currentMessage()
        assert notice.startswith("Shell commands use snapshots (no overlay here)")
        assert "Sandbox: snapshots (no overlay: cannot make a staging folder" in desk.window.status.footer.toolTip()
