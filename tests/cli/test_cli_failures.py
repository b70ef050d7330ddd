"""The terminal's commands end in a sentence and the right exit status, never a traceback (issue 23):
an unknown Inbox number, an invalid mcp.json, a closed pipe, a path filter that is a path, an absurd
schedule. ``ask`` when its kernel goes away mid-run is in tests/service/test_ask_attached.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernel.cli import main
from ledger import Ledger
from tests.cli.inproc import agentdesk

ROOT = Path(__file__).resolve().parents[2]


def test_an_unknown_inbox_number_is_a_sentence(agentdesk_home):
    for action in ("recheck", "sent", "not-sent"):
        done = agentdesk(["inbox", action, "999"], agentdesk_home)
        assert done.returncode == 2, done.stderr
        assert "agentdesk inbox: no ledger entry #999" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("text", ["{bad", '{"servers": {"a": 3}}'])
def test_an_invalid_mcp_json_is_said_and_exits_non_zero(agentdesk_home, text):
    (agentdesk_home / "mcp.json").write_text(text)
    done = agentdesk(["mcp", "list"], agentdesk_home)
    assert done.returncode == 2, done.stderr
    assert "mcp.json" in done.stderr and "no MCP servers yet" not in done.stderr


def test_a_closed_pipe_ends_mcp_list_quietly(agentdesk_home):
    # 64 servers (mcp.json's most) whose lines are long: far more than a pipe holds, so the listing is
    # still writing when the reader goes away (a short listing fits the pipe and never sees it close)
    servers = {f"server{i:04d}": {"command": "/bin/true", "args": ["x" * 4000, str(i)]} for i in range(64)}
    (agentdesk_home / "mcp.json").write_text(json.dumps({"servers": servers}))
    env = {**os.environ, "AGENTDESK_HOME": str(agentdesk_home), "AGENTDESK_KEYRING": "off", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "kernel.cli", "mcp", "list"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=ROOT)
    first = proc.stdout.read(100)  # what `head -c 100` reads, then it closes the pipe
    proc.stdout.close()
    err = proc.stderr.read()
    status = proc.wait(timeout=60)
    assert first.startswith(b"server0000")
    assert b"Traceback" not in err and b"BrokenPipe" not in err and err == b"", err
    assert status == 141


def test_a_path_filter_is_a_path_not_a_string_prefix(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("AGENTDESK_HOME", str(home))
    ws = (tmp_path / "ws").resolve()
    with Ledger(home / "ledger.db") as ledger:
        notes_md = ledger.write_file(actor="a1", path=ws / "notes" / "notes.md", content=b"n\n", cause=None)
        no_file = ledger.write_file(actor="a1", path=ws / "notes" / "no", content=b"x\n", cause=None)
        nothing = ledger.write_file(actor="a1", path=ws / "notes" / "nother.txt", content=b"z\n", cause=None)
    for argv, expected in [(["--path", str(ws / "notes" / "no")], [no_file.seq]),
                           (["--path", str(ws / "notes")], [nothing.seq, no_file.seq, notes_md.seq]),
                           (["--path", str(ws / "notes" / "no") + "/"], [])]:
        assert main(["ledger", "--json", *argv]) == 0
        assert [json.loads(line)["seq"] for line in capsys.readouterr().out.splitlines()] == expected, argv


def test_a_path_filter_reads_past_a_page_of_other_paths(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("AGENTDESK_HOME", str(home))
    ws = (tmp_path / "ws").resolve()
    with Ledger(home / "ledger.db") as ledger:
        wanted = ledger.write_file(actor="a1", path=ws / "d" / "in.txt", content=b"i\n", cause=None)
        for i in range(250):  # newer entries under a sibling whose name starts the same
            ledger.write_file(actor="a1", path=ws / f"d2-{i}.txt", content=b"o\n", cause=None)
    assert main(["ledger", "--json", "--path", str(ws / "d"), "--limit", "5"]) == 0
    assert [json.loads(line)["seq"] for line in capsys.readouterr().out.splitlines()] == [wanted.seq]


@pytest.mark.parametrize("digits", [300, 5000])
def test_an_absurd_interval_is_a_sentence_and_exit_2(agentdesk_home, tmp_path, digits):
    done = agentdesk(["automation", "add", "n", "--objective", "o", "--workspace", str(tmp_path),
                      "--schedule", f"every {'9' * digits}d"], agentdesk_home)
    assert done.returncode == 2, done.stderr
    assert "at most 3660 days" in done.stderr and len(done.stderr) < 300
    listed = agentdesk(["automation", "list", "--json"], agentdesk_home)
    assert listed.stdout == ""
