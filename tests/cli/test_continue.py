"""Terminal users continue an agent (issue 23): ``ask --agent ID`` sends a follow-up to an existing agent and
``show ID [--json]`` prints its transcript, in-process here (no kernel runs); ``resume ID`` and both through a
running kernel are in tests/service/test_ask_attached.py."""

from __future__ import annotations

import json

from ledger import Ledger
from tests.cli.inproc import agentdesk
from tests.cli.test_ask import anthropic_env, ask, srv  # noqa: F401 - the fixture
from tests.fakes import Text, Turn


def _agent_id(home) -> str:
    with Ledger(home / "ledger.db") as ledger:
        [spawn] = ledger.page(kind="agent.spawn")
    return spawn.actor


def test_a_follow_up_goes_to_the_same_agent_and_show_prints_the_transcript(srv, tmp_path, agentdesk_home):  # noqa: F811
    srv.script(Turn(parts=(Text("first answer"),)), Turn(parts=(Text("second \x1b[2Janswer"),)))
    done = ask(["first question", "--workspace", str(tmp_path)], agentdesk_home, anthropic_env(srv))
    assert done.returncode == 0, done.stderr
    agent = _agent_id(agentdesk_home)
    again = ask(["second question", "--agent", agent], agentdesk_home, anthropic_env(srv))
    assert again.returncode == 0, again.stderr
    assert "second" in again.stdout
    sent = json.dumps(srv.requests[1].body)
    assert "first question" in sent and "first answer" in sent and "second question" in sent
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        assert len(ledger.page(kind="agent.spawn")) == 1  # no new agent
    shown = agentdesk(["show", agent], agentdesk_home)
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    for piece in ("── user", "first question", "── assistant", "first answer", "second question",
                  "second \\x1b[2Janswer"):
        assert piece in text, piece
    assert "\x1b" not in text
    assert text.splitlines()[-1].startswith("── usage: ") and " in · " in text and "context " in text
    as_json = agentdesk(["show", agent, "--json"], agentdesk_home)
    rows = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [r["role"] for r in rows] == ["user", "assistant", "user", "assistant"]
    assert rows[3]["parts"] == [{"type": "TextPart", "text": "second \x1b[2Janswer"}]


def test_unknown_agents_and_mixed_options_are_sentences(srv, tmp_path, agentdesk_home):  # noqa: F811
    srv.script(Turn(parts=(Text("hi"),)))
    assert ask(["hello", "--workspace", str(tmp_path)], agentdesk_home, anthropic_env(srv)).returncode == 0
    for args in (["show", "a999"], ["ask", "x", "--agent", "a999"], ["resume", "a999"]):
        done = agentdesk(args, agentdesk_home, anthropic_env(srv))
        assert done.returncode == 2 and "a999" in done.stderr, (args, done.stderr)
    mixed = ask(["x", "--agent", _agent_id(agentdesk_home), "--model", "m"], agentdesk_home, anthropic_env(srv))
    assert mixed.returncode == 2 and "--model cannot be given with --agent" in mixed.stderr
