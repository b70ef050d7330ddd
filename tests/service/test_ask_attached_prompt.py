"""``agentdesk ask "/server:prompt a=b"`` through a running kernel: the kernel gets the server's prompt and its
messages are the question (untrusted, recorded); a missing argument is exit 2 with its name. The kernel process
starts the resource server of its home's mcp.json (tests/extensions/mcp_resource_server.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kernel.extensions.mcp_config import McpServerConfig, McpStore
from tests.extensions.test_mcp_resources import RESOURCE_SERVER
from tests.fakes import Text, Turn

from .conftest import ROOT, agentdesk


@pytest.fixture
def resource_home(agentdesk_home):
    McpStore(agentdesk_home).add(McpServerConfig("r", command=sys.executable, args=(str(RESOURCE_SERVER),),
                                                 timeout_s=30))
    return agentdesk_home


def _ask(text: str, env: dict[str, str], ws) -> subprocess.CompletedProcess[str]:
    return subprocess.run(agentdesk("ask", text, "--workspace", str(ws)), env=env, cwd=ROOT,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=90)


def test_a_prompt_command_through_the_kernel_is_the_servers_prompt(resource_home, kernel_proc, kernel_env, srv,
                                                                   tmp_path):
    missing = _ask("/r:review", kernel_env, tmp_path)
    assert missing.returncode == 2 and "/r:review needs path=…" in missing.stderr, missing.stderr
    srv.script(Turn(parts=(Text("reviewed"),)))
    done = _ask("/r:review path=todo.md tone=brisk", kernel_env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "reviewed" in done.stdout
    content = srv.requests[0].body["messages"][-1]["content"]
    text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    assert '<untrusted source="MCP server r, prompt review"' in text and "Please review todo.md in a brisk tone." in text
