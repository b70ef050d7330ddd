"""An attacker's attempts to leave a skill's manifest: links inside the workspace that lead out of
the paths it allows, and redirects that lead out of the domains it allows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fakes import Text, ToolCall, Turn

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
        agent = env.kernel.spawn("skilled")
        for scope in ("skill", "fs"):
            env.kernel.grant_lease(agent.id, scope, 300)
        env.kernel.send(agent.id, "go")
        assert (await env.kernel.wait(agent.id)).state == "idle"
        read, write = _results(env, 2)[-2:]
        assert read[2] and "refused by the skill docs" in read[1] and "s3cret-marker" not in read[1]
        assert write[2] and "refused by the skill docs" in write[1]
        assert not (env.workspace / "src" / "evil.py").exists()

    mcp_kernel([], body)
