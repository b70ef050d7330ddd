"""``agentdesk ask`` on a home whose ledger was tampered with warns on stderr and still runs."""

from __future__ import annotations

import sqlite3

from ledger import Intact, Ledger, ToolCall
from tests.cli.test_ask import anthropic_env, ask
from tests.fakes import FakeProviderServer, Text, Turn, Usage


def test_ask_warns_about_a_broken_ledger(tmp_path, agentdesk_home) -> None:
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        for _ in range(3):
            ledger.append(ToolCall(actor="a", tool="t", scope="s"))
    raw = sqlite3.connect(agentdesk_home / "ledger.db")
    raw.execute("DROP TRIGGER entries_no_update")
    raw.execute("UPDATE entries SET actor = 'mallory' WHERE seq = 3")
    raw.commit()
    raw.close()
    with FakeProviderServer() as srv:
        srv.script(Turn(parts=(Text("hello"),), usage=Usage(10, 2)))
        done = ask(["say hello", "--workspace", str(tmp_path)], agentdesk_home, anthropic_env(srv))
    assert done.returncode == 0, done.stderr
    assert "warning: the ledger is broken at #3: it does not match its hash" in done.stderr
    assert "hello" in done.stdout


def test_ask_on_an_intact_ledger_says_nothing_and_keeps_it_intact(tmp_path, agentdesk_home) -> None:
    with FakeProviderServer() as srv:
        srv.script(Turn(parts=(Text("hello"),), usage=Usage(10, 2)))
        done = ask(["say hello", "--workspace", str(tmp_path)], agentdesk_home, anthropic_env(srv))
    assert done.returncode == 0, done.stderr
    assert "ledger" not in done.stderr
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        assert isinstance(ledger.verify_chain(), Intact) and ledger.count() >= 1  # the spawn at least
