"""``agentdesk ask`` asks a one-off confirmation on a TTY (and denies it without one)."""

from __future__ import annotations

import json

import pytest

from ledger import Ledger
from tests.cli.test_ask import anthropic_env, ask, ask_on_a_tty
from tests.fakes import FakeProviderServer, Text, ToolCall as FakeCall, Turn


@pytest.fixture
def srv():
    with FakeProviderServer() as s:
        yield s


def _confirm_writes(home) -> None:
    (home / "settings.json").write_text(json.dumps({"policies": {"fs.write": "confirm"}}))


def test_on_a_terminal_a_confirm_policy_asks_once_per_call(srv, tmp_path, agentdesk_home):
    _confirm_writes(agentdesk_home)
    srv.script(Turn(parts=(FakeCall("fs_write", {"path": "t.txt", "content": "tty\n"}),)),
               Turn(parts=(Text("written"),)))
    status, seen, _out, err = ask_on_a_tty(["write t", "--workspace", str(tmp_path)],
                                           agentdesk_home, anthropic_env(srv), b"[N] Deny", b"y\n")
    assert status == 0, seen + err
    assert b"asks every time: your policy for fs.write is to confirm every call" in seen
    assert b"[y] Allow once" in seen and (tmp_path / "t.txt").read_text() == "tty\n"
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        [confirm] = ledger.page(kind="confirm")
        [call] = ledger.page(kind="tool")
        assert confirm.actor == "user" and call.confirmed == confirm.seq and call.lease is None


def test_without_a_terminal_a_grant_is_refused_up_front_and_the_confirmation_refused_by_the_kernel(
        srv, tmp_path, agentdesk_home):
    _confirm_writes(agentdesk_home)
    refused = ask(["write t", "--workspace", str(tmp_path), "--grant", "fs.write=5m"], agentdesk_home, anthropic_env(srv))
    assert refused.returncode == 2 and "your policy for fs.write is to confirm every call" in refused.stderr
    srv.script(Turn(parts=(FakeCall("fs_write", {"path": "t.txt", "content": "x"}),)), Turn(parts=(Text("ok"),)))
    done = ask(["write t", "--workspace", str(tmp_path)], agentdesk_home, anthropic_env(srv))
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "t.txt").exists() and "permission denied" in done.stderr
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        [denied] = ledger.page(kind="denied")
    assert denied.actor == "kernel" and "confirm every call" in denied.reason
