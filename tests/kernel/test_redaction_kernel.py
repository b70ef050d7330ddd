"""Redaction through a real kernel: what an agent sends and reads reaches the ledger without the
secrets the kernel holds or token patterns, while the files it writes keep their exact bytes."""

from __future__ import annotations

import sqlite3

from kernel.providers.scripted import reply
from tests.fakes.web_server import WebFake

from .conftest import GRANT_5M, run

ENV_SECRET = "env-canary-Zq81xYw9Lk"
GITHUB = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"


async def episode(env, name: str, text: str):
    agent = env.kernel.agents.spawn(name)
    env.kernel.agents.send(agent.id, text)
    info = await env.kernel.agents.wait(agent.id)
    await env.kernel.aclose()
    return info


def raw(env) -> str:
    with sqlite3.connect(env.ledger.path) as db:
        return "\n".join(str(tuple(r)) for r in db.execute("SELECT * FROM entries"))


def test_tool_inputs_outputs_and_errors_are_redacted_files_are_not(make_env, monkeypatch):
    monkeypatch.setenv("SERVICE_TOKEN", ENV_SECRET)  # held because its name says it is a secret
    env = make_env()
    content = f"TOKEN={ENV_SECRET}\nGH={GITHUB}\n"
    env.provider.script(
        reply(tools=(("fs_write", {"path": "secrets.env", "content": content}),)),
        reply(tools=(("fs_read", {"path": "secrets.env"}), ("fs_read", {"path": f"missing-{GITHUB}.txt"}))),
        reply("done"))
    env.approver.will(GRANT_5M, GRANT_5M)
    info = run(episode(env, "writer", "write it"))
    assert info.state == "idle"
    assert (env.workspace / "secrets.env").read_text() == content  # the file is exact
    text = raw(env)
    assert ENV_SECRET not in text and GITHUB not in text
    assert "[REDACTED:held-secret]" in text and "[REDACTED:github-pat]" in text
    kinds = {e.kind: e for e in env.ledger.page(limit=100) if e.redacted}
    assert {"tool", "error"} <= set(kinds)  # fs_read records no contents; web_fetch below covers results
    change = env.ledger.page(kind="fs.write", limit=1)[0]
    assert env.ledger.blob(change.after).decode() == content  # the blob too: undo restores the exact bytes


def test_a_fetched_page_with_a_token_is_redacted_in_the_record(make_env):
    with WebFake() as fake:
        env = make_env(web_allow_private=True)
        url = fake.url("/json")
        env.provider.script(reply(tools=(("web_fetch", {"url": url + f"?leak={GITHUB}"}),)), reply("ok"))
        env.approver.will(GRANT_5M)
        info = run(episode(env, "reader", "read"))
    assert info.state == "idle"
    assert env.approver.requests[0].scope == "net.fetch"
    assert GITHUB not in raw(env)
    result = env.ledger.page(kind="result", limit=1)[0]
    assert result.output["status"] == 200 and "[REDACTED:github-pat]" in result.output["url"]


def test_a_key_saved_later_is_held_from_then_on(make_env):
    env = make_env()
    assert env.kernel.hold_secret("saved-later-key-123456", "keys.json brave")
    assert not env.kernel.hold_secret("short")
    env.provider.script(reply(tools=(("fs_read", {"path": "saved-later-key-123456"}),)), reply("ok"))
    env.approver.will(GRANT_5M)
    run(episode(env, "late", "go"))
    assert "saved-later-key-123456" not in raw(env)
