"""A real kernel process on a home whose automation records were edited behind its back: its check at start
finds it, ``agentdesk status`` exits 1 naming the table and row, and the socket serves the result."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

from kernel.automations import Automation, RunRecord
from kernel.automations.chain import ChainBroken
from kernel.automations.store import AutomationStore
from kernel.service.client import SyncChannel
from ledger import Ledger

from .conftest import ROOT, KernelProcess, agentdesk


def _paused(store: AutomationStore) -> None:
    """An automation that the kernel's scheduler leaves alone (no run starts in these tests)."""
    automation = Automation(id="a1", name="Digest", objective="o", schedule="every 1h")
    store.record(100.0, automation, "create", "user")
    store.record(101.0, automation, "pause", "user")


def _forged(home: Path) -> None:
    Ledger(home / "ledger.db").close()
    store = AutomationStore(str(home / "ledger.db"))
    _paused(store)
    assert store.claim("a1", 3600.0, 0, "1:w", 3601.0)
    assert store.finish(RunRecord("a1", 3600.0, 0, 3700.0, "agent-1", "failed", "boom", "", ()))
    store.close()
    raw = sqlite3.connect(home / "ledger.db")
    raw.execute("DROP TRIGGER automation_runs_no_update")
    raw.execute("UPDATE automation_runs SET outcome = 'succeeded'")  # a failure made to look like a success
    raw.commit()
    raw.close()


def test_status_and_the_socket_name_the_broken_automation_row(kernel_env, agentdesk_home: Path) -> None:
    _forged(agentdesk_home)
    k = KernelProcess(agentdesk_home, kernel_env).start()
    try:
        status = subprocess.run(agentdesk("status", "--json"), env=kernel_env, cwd=ROOT, capture_output=True,
                                text=True, timeout=60)
        report = json.loads(status.stdout)
        assert status.returncode == 1 and report["kernel"] == "up" and report["ledger_intact"]
        assert report["automations_intact"] is False
        assert report["automations_problem"].startswith("automation_runs row 1: the row or its chain link #4 was changed")
        words = subprocess.run(agentdesk("status"), env=kernel_env, cwd=ROOT, capture_output=True, text=True,
                               timeout=60)
        assert words.returncode == 1
        assert "automation records: BROKEN at automation_runs row 1: the row or its chain link #4" in words.stdout
        ch = SyncChannel(k.socket, "test", timeout=10.0)
        ch.connect()
        try:
            found = ch.call("automations.integrity")
        finally:
            ch.close()
        assert isinstance(found, ChainBroken) and (found.table, found.row) == ("automation_runs", 1)
    finally:
        k.stop()


def test_an_intact_home_is_healthy_and_says_how_many_rows(kernel_env, agentdesk_home: Path) -> None:
    Ledger(agentdesk_home / "ledger.db").close()
    store = AutomationStore(str(agentdesk_home / "ledger.db"))
    _paused(store)
    store.close()
    k = KernelProcess(agentdesk_home, kernel_env).start()
    try:
        words = subprocess.run(agentdesk("status"), env=kernel_env, cwd=ROOT, capture_output=True, text=True,
                               timeout=60)
        assert words.returncode == 0 and "automation records: verified (2 rows)" in words.stdout
    finally:
        k.stop()
