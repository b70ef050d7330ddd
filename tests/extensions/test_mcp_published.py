"""Published MCP servers, run for real: ``mcp-server-git`` from PyPI (pinned in the test extra) on a
repository under tmp_path, and the older protocol revision (our client in legacy mode)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernel.leases.approver import Grant
from kernel.extensions.mcp_client import McpConnection
from kernel.extensions.mcp_config import McpServerConfig
from tests.fakes import Text, ToolCall, Turn
from tests.providers.support import wire_conversation

from .conftest import McpEnv, stdio_server


def _git_server() -> str | None:
    found = Path(sys.executable).with_name("mcp-server-git")
    return str(found) if found.exists() else shutil.which("mcp-server-git")


@pytest.mark.skipif(_git_server() is None or shutil.which("git") is None, reason="mcp-server-git or git missing")
def test_mcp_server_git_lists_and_answers_through_the_loop(mcp_kernel, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "notes.txt").write_text("hello\n")
    server = McpServerConfig("git", command=str(_git_server()), args=("--repository", str(repo)), timeout_s=60)

    async def body(env: McpEnv) -> None:
        assert env.problems == {}
        tools = {t.name: t for t in env.kernel.tools()}
        assert {"mcp__git__git_status", "mcp__git__git_log", "mcp__git__git_commit"} <= set(tools)
        assert tools["mcp__git__git_status"].scope == "mcp.git.git_status" and not tools["mcp__git__git_status"].trusted
        env.approver.will(Grant(300.0))
        state = await env.ask(Turn(parts=(ToolCall("mcp__git__git_status", {"repo_path": str(repo)}, id="g1"),)),
                              Turn(parts=(Text("done"),)))
        assert state == "idle"
        _, items = wire_conversation("anthropic", env.srv.requests[1].body)
        [(call_id, text, is_error)] = [item[2:] for item in items if item[1] == "result"]
        assert call_id == "g1" and not is_error and "notes.txt" in text

    mcp_kernel([server], body)


def test_the_older_protocol_revision_works(tmp_path):
    import asyncio

    async def main() -> None:
        conn = McpConnection(stdio_server(), log_path=tmp_path / "legacy.log", mode="legacy")
        try:
            tools = await conn.list_tools()
            assert "echo" in {t.name for t in tools}
            assert conn.protocol is not None and conn.protocol < "2026"
            content, _, is_error = await conn.call("echo", {"text": "old"})
            assert not is_error and content[0].text == "echo: old"
        finally:
            await conn.close()

    asyncio.run(asyncio.wait_for(main(), 120))


FILESYSTEM = Path(__file__).with_name("npm") / "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"


@pytest.mark.skipif(not FILESYSTEM.exists() or shutil.which("node") is None,
                    reason="scripts/bootstrap.sh test installs it (npm ci in tests/extensions/npm)")
def test_npm_server_filesystem_speaks_the_older_revision_through_the_loop(mcp_kernel, tmp_path):
    shared = tmp_path / "ws"  # the agents' workspace (mcp_kernel's): the roots the server is told replace its
    shared.mkdir()            # folder as soon as it asks, so a file elsewhere was refused whenever it asked first
    (shared / "hello.txt").write_text("hi from npm")
    server = McpServerConfig("files", command=str(shutil.which("node")), args=(str(FILESYSTEM), str(shared)),
                             timeout_s=60)

    async def body(env: McpEnv) -> None:
        assert env.problems == {}
        [status] = env.kernel.extensions.mcp_status()
        assert status.protocol is not None and status.protocol < "2026"  # negotiated down to a 2025 revision
        tools = {t.name: t for t in env.kernel.tools()}
        assert {"mcp__files__read_text_file", "mcp__files__write_file"} <= set(tools)
        assert tools["mcp__files__write_file"].risk == "R3"
        env.approver.will(Grant(300.0))
        state = await env.ask(Turn(parts=(ToolCall("mcp__files__read_text_file", {"path": str(shared / "hello.txt")},
                                                   id="f1"),)), Turn(parts=(Text("done"),)))
        assert state == "idle"
        _, items = wire_conversation("anthropic", env.srv.requests[1].body)
        [(call_id, text, is_error)] = [item[2:] for item in items if item[1] == "result"]
        assert call_id == "f1" and not is_error and "hi from npm" in text

    mcp_kernel([server], body)
