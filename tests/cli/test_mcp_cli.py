"""``agentdesk mcp add|list|rm`` on a real home folder; secrets never printed nor in mcp.json."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

from kernel.cli import main
from kernel.config.secrets import usable_keyring


def test_add_list_rm_keeps_secrets_apart(agentdesk_home: Path, monkeypatch, capsys):
    monkeypatch.setenv("AGENTDESK_KEYRING", "off")  # never a real keyring from a test
    usable_keyring.cache_clear()
    monkeypatch.setenv("GIT_TOKEN", "tok-from-env-123")
    assert main(["mcp", "add", "git", "--env", "LOG=1", "--secret-env", "GIT_TOKEN", "--secret-env", "OTHER=sek-456",
                 "--command", "mcp-server-git --repository /tmp/r"]) == 0
    assert main(["mcp", "add", "web", "--url", "https://example.test/mcp", "--secret-header", "Authorization=Bearer x9"]) == 0
    capsys.readouterr()
    assert main(["mcp", "list"]) == 0
    out = capsys.readouterr().out
    assert "git  stdio  mcp-server-git --repository /tmp/r  secrets: GIT_TOKEN, OTHER" in out
    assert "web  http  https://example.test/mcp  secrets: Authorization" in out
    assert "tok-from-env" not in out and "sek-456" not in out and "x9" not in out
    assert main(["mcp", "list", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["name"] for r in rows] == ["git", "web"] and rows[0]["secrets"] == ["GIT_TOKEN", "OTHER"]
    mcp_json = (agentdesk_home / "mcp.json").read_text()
    assert "tok-from-env" not in mcp_json and "sek-456" not in mcp_json and "LOG" in mcp_json
    keys = agentdesk_home / "keys.json"  # where provider keys are, no keyring here (kernel/extensions/mcp_secrets.py)
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600 and not (agentdesk_home / "mcp_keys.json").exists()
    assert main(["mcp", "rm", "git"]) == 0 and main(["mcp", "rm", "git"]) == 2
    assert "tok-from-env" not in keys.read_text() and "x9" in keys.read_text()


def test_bad_input_is_a_sentence_and_exit_2(agentdesk_home: Path, capsys):
    assert main(["mcp", "add", "Bad Name", "--command", "x"]) == 2
    assert "server 'Bad Name'" in capsys.readouterr().err
    assert main(["mcp", "add", "both", "--url", "http://h/", "--command", "x"]) == 2
    assert main(["mcp", "add", "s", "--secret-env", "NOT_SET_ANYWHERE_X", "--command", "x"]) == 2
    assert "no environment variable NOT_SET_ANYWHERE_X" in capsys.readouterr().err
    (agentdesk_home / "mcp.json").write_text("[1, 2]")
    assert main(["mcp", "list"]) == 2  # what is wrong, and not "no MCP servers yet" (issue 23)
    err = capsys.readouterr().err
    assert "mcp.json must be an object" in err and "no MCP servers yet" not in err


def test_the_console_script_knows_mcp(agentdesk_home: Path):
    done = subprocess.run([sys.executable, "-c", "from kernel.cli import main; raise SystemExit(main(['mcp', 'list']))"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "no MCP servers yet" in done.stderr
