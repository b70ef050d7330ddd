"""An attacker's attempts to leave a skill's manifest: links inside the workspace that lead out of
the paths it allows, and redirects that lead out of the domains it allows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kernel.providers.scripted import reply
from tests.fakes import Text, ToolCall, Turn
from tests.fakes.web_server import WebFake
from tests.kernel.conftest import make_env, run  # noqa: F401 - make_env is a fixture used here

from .conftest import McpEnv
from .test_skills import _results, enable, make_skill


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path


def test_a_link_inside_the_allowed_paths_does_not_lead_out_of_them(mcp_kernel, home):
    make_skill(home / "skills", "docs", manifest={"scopes": ["fs"], "paths": {"fs.read": ["docs/"],
                                                                               "fs.write": ["docs/"]}})
    enable(home, None, "docs")

    async def body(env: McpEnv) -> None:
        (env.workspace / "docs").mkdir()
        (env.workspace / "private").mkdir()
        (env.workspace / "private" / "secret.txt").write_text("s3cret-marker")
        (env.workspace / "src").mkdir()
        os.symlink("../private", env.workspace / "docs" / "notes")   # planted in the workspace
        os.symlink("../src", env.workspace / "docs" / "code")
        env.srv.script(
            Turn(parts=(ToolCall("skill_load", {"name": "docs"}),)),
            Turn(parts=(ToolCall("fs_read", {"path": "docs/notes/secret.txt"}),
                        ToolCall("fs_write", {"path": "docs/code/evil.py", "content": "x"}))),
            Turn(parts=(Text("done"),)))
        agent = env.kernel.agents.spawn("skilled")
        for scope in ("skill", "fs"):
            env.kernel.leases.grant(agent.id, scope, 300)
        env.kernel.agents.send(agent.id, "go")
        assert (await env.kernel.agents.wait(agent.id)).state == "idle"
        read, write = _results(env, 2)[-2:]
        assert read[2] and "refused by the skill docs" in read[1] and "s3cret-marker" not in read[1]
        assert write[2] and "refused by the skill docs" in write[1]
        assert not (env.workspace / "src" / "evil.py").exists()

    mcp_kernel([], body)


def test_a_file_link_inside_the_allowed_paths_is_not_searched_through(mcp_kernel, home):
    make_skill(home / "skills", "docs", manifest={"scopes": ["fs.read"], "paths": {"fs.read": ["docs/"]}})
    enable(home, None, "docs")

    async def body(env: McpEnv) -> None:
        (env.workspace / "docs").mkdir()
        (env.workspace / "docs" / "guide.md").write_text("needle in the guide")
        (env.workspace / "private").mkdir()
        (env.workspace / "private" / "secret.txt").write_text("needle s3cret-marker")
        os.symlink("../private/secret.txt", env.workspace / "docs" / "leak.txt")
        env.srv.script(
            Turn(parts=(ToolCall("skill_load", {"name": "docs"}),)),
            Turn(parts=(ToolCall("fs_search", {"pattern": "needle", "path": "docs"}),)),
            Turn(parts=(Text("done"),)))
        agent = env.kernel.agents.spawn("searcher")
        for scope in ("skill", "fs"):
            env.kernel.leases.grant(agent.id, scope, 300)
        env.kernel.agents.send(agent.id, "go")
        assert (await env.kernel.agents.wait(agent.id)).state == "idle"
        [(_, found, is_error)] = _results(env, 2)[-1:]
        assert not is_error and "needle in the guide" in found and "s3cret-marker" not in found

    mcp_kernel([], body)


def test_a_redirect_does_not_lead_out_of_the_domains_a_skill_may_fetch(make_env, tmp_path):  # noqa: F811
    make_skill(tmp_path / "skills", "web", manifest={"scopes": ["net.fetch"], "domains": ["localhost"]})
    enable(tmp_path, None, "web")
    with WebFake() as fake:
        fake.redirect_target = fake.url("/json")  # 127.0.0.1: not among the skill's domains
        env = make_env(web_allow_private=True)
        env.provider.script(
            reply(tools=(("skill_load", {"name": "web"}),)),
            reply(tools=(("web_fetch", {"url": fake.url("/text", host="localhost")}),
                         ("web_fetch", {"url": fake.url("/to-private", host="localhost")}))),
            reply("done"))

        async def go():
            agent = env.kernel.agents.spawn("fetcher")
            for scope in ("skill", "net"):
                env.kernel.leases.grant(agent.id, scope, 300)
            env.kernel.agents.send(agent.id, "go")
            info = await env.kernel.agents.wait(agent.id)
            await env.kernel.aclose()
            return info

        assert run(go()).state == "idle"
        asked = [path for _, path, _, _ in fake.requests]
    assert sorted(asked) == ["/text", "/to-private"]  # the two run in parallel; the redirect's target was never asked for
    fetched = [e for e in env.ledger.page(kind="result", limit=20) if "plain words" in (e.content or "")]
    assert len(fetched) == 1
    [error] = [e.message for e in env.ledger.page(kind="error", limit=20)]
    assert "127.0.0.1" in error and "domains" in error
