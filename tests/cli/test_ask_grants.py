"""``--grant`` keeps its word (issue 23): a scope whose calls are confirmed one by one is refused up front
with how such calls can be allowed, and a request nobody can answer (no terminal, nobody attached) is
recorded as refused by the kernel with its reason, never as a denial by a user nobody asked. In-process
here; through a running kernel in tests/service/test_ask_attached.py."""

from __future__ import annotations

import json

from ledger import Ledger
from tests.cli.test_ask import anthropic_env, ask, srv  # noqa: F401 - the fixture
from tests.fakes import Text, ToolCall as FakeCall, Turn


def test_a_grant_of_a_scope_confirmed_on_every_call_is_refused_up_front(srv, tmp_path, agentdesk_home):  # noqa: F811
    for scope in ("shell.exec.net", "shell.exec.net=5m"):
        done = ask(["x", "--workspace", str(tmp_path), "--grant", scope], agentdesk_home, anthropic_env(srv))
        assert done.returncode == 2, done.stderr
        assert "granted" not in done.stderr.replace("--grant", "")
        assert "--grant shell.exec.net would allow nothing: shell_exec is confirmed on every call" in done.stderr
        assert "from a terminal" in done.stderr and "policy for shell.exec.net in settings.json" in done.stderr
    assert srv.requests == []
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        assert ledger.page(kind="agent.spawn") == []


def test_a_policy_naming_the_scope_makes_the_grant_useful(srv, tmp_path, agentdesk_home):  # noqa: F811
    (agentdesk_home / "settings.json").write_text(json.dumps({"policies": {"shell.exec.net": "ask"}}))
    srv.script(Turn(parts=(Text("ok"),)))
    done = ask(["x", "--workspace", str(tmp_path), "--grant", "shell.exec.net"], agentdesk_home, anthropic_env(srv))
    assert done.returncode == 0, done.stderr
    assert "granted shell.exec.net for" in done.stderr


def test_a_grant_covering_some_unconfirmed_scope_stands(srv, tmp_path, agentdesk_home):  # noqa: F811
    srv.script(Turn(parts=(Text("ok"),)))
    done = ask(["x", "--workspace", str(tmp_path), "--grant", "shell"], agentdesk_home, anthropic_env(srv))
    assert done.returncode == 0, done.stderr
    assert "granted shell for" in done.stderr


def test_a_request_nobody_can_answer_is_refused_by_the_kernel_with_its_reason(srv, tmp_path, agentdesk_home):  # noqa: F811
    srv.script(Turn(parts=(FakeCall("fs_write", {"path": "n.txt", "content": "no\n"}),)), Turn(parts=(Text("fine"),)))
    done = ask(["write n", "--workspace", str(tmp_path)], agentdesk_home, anthropic_env(srv))
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "n.txt").exists()
    assert "nobody is there to grant one" in json.dumps(srv.requests[1].body)
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        [denied] = ledger.page(kind="denied")
    assert denied.actor == "kernel" and denied.scope == "fs.write" and denied.reason
