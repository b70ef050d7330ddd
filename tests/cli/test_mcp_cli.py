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
    # switched off: saved, never started (nothing here may reach a network)
    assert main(["mcp", "add", "git", "--env", "LOG=1", "--secret-env", "GIT_TOKEN", "--secret-env", "OTHER=sek-456",
                 "--command", "mcp-server-git --repository /tmp/r", "--disabled"]) == 0
    assert main(["mcp", "add", "web", "--url", "https://example.test/mcp", "--secret-header", "Authorization=Bearer x9",
                 "--disabled"]) == 0
    capsys.readouterr()
    assert main(["mcp", "list"]) == 0
    out = capsys.readouterr().out
    assert "git  stdio  mcp-server-git --repository /tmp/r  secrets: GIT_TOKEN, OTHER  (disabled)" in out
    assert "web  http  https://example.test/mcp  secrets: Authorization  (disabled)" in out
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


def _home_with_server(tmp_path: Path, monkeypatch) -> Path:
    """A HOME with ~/bin/srv starting our test MCP server, and $SRV_SCRIPT naming its script."""
    from tests.extensions.conftest import SERVER

    user_home = tmp_path / "user"
    (user_home / "bin").mkdir(parents=True)
    srv = user_home / "bin" / "srv"
    srv.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    srv.chmod(0o755)
    monkeypatch.setenv("HOME", str(user_home))
    monkeypatch.setenv("SRV_SCRIPT", str(SERVER))
    return user_home


def test_add_expands_home_and_variables_waits_and_prints_tools_and_scopes(agentdesk_home: Path, tmp_path: Path,
                                                                          monkeypatch, capsys):
    from tests.extensions.conftest import SERVER

    user_home = _home_with_server(tmp_path, monkeypatch)
    assert main(["mcp", "add", "t", "--command", "~/bin/srv \"$SRV_SCRIPT\" '$NOT_EXPANDED'"]) == 0
    out, err = capsys.readouterr()
    stored = json.loads((agentdesk_home / "mcp.json").read_text())["servers"]["t"]
    assert stored["command"] == str(user_home / "bin" / "srv") and stored["args"] == [str(SERVER), "$NOT_EXPANDED"]
    assert f"added t (stdio: {user_home}/bin/srv {SERVER} '$NOT_EXPANDED')" in err  # what was stored, as words
    assert "  connected" in out
    lines = {line.split()[0]: line.split()[1] for line in out.splitlines() if line.startswith("    mcp__")}
    assert lines["mcp__t__echo"] == "mcp.t.echo" and "mcp.t.dup-name" in lines.values()

    assert main(["mcp", "list"]) == 0  # no kernel: each server started once to ask
    out, err = capsys.readouterr()
    assert "  connected" in out and "mcp.t.echo" in out and "no kernel is running" in err
    assert main(["mcp", "list", "--json"]) == 0
    [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["state"] == "connected" and {"name": "mcp__t__echo", "scope": "mcp.t.echo"} in row["tools"]


def test_add_of_a_server_that_cannot_start_says_why_and_fails(agentdesk_home: Path, tmp_path: Path, monkeypatch,
                                                              capsys):
    _home_with_server(tmp_path, monkeypatch)
    assert main(["mcp", "add", "gone", "--command", "~/bin/no-such-server", "--timeout", "10"]) == 1
    err = capsys.readouterr().err
    assert "could not be started" in err and "no-such-server was not found" in err and "agentdesk mcp rm gone" in err
    assert main(["mcp", "add", "x", "--command", "~/bin/srv $NOT_SET_ANYWHERE_Y"]) == 2
    assert "$NOT_SET_ANYWHERE_Y, which is not set" in capsys.readouterr().err
    assert main(["mcp", "add", "x", "--command", "srv $(rm -rf ~)"]) == 2
    assert "cannot run commands" in capsys.readouterr().err
