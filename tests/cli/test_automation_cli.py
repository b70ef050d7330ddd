"""``agentdesk automation`` and ``agentdesk inbox`` on a temp home (the console script's ``main`` in this
process, tests/cli/inproc.py), a real SDK run against the loopback fake server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli.inproc import agentdesk as in_process
from tests.cli.test_ask import anthropic_env
from tests.fakes import FakeProviderServer, Text, ToolCall, Turn


def agentdesk(args: list[str], home: Path, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return in_process(args, home, env_extra)


def test_add_refuses_a_half_hourly_schedule_with_the_kernels_sentence(agentdesk_home, tmp_path):
    done = agentdesk(["automation", "add", "digest", "--objective", "o", "--schedule", "*/30 * * * *",
                      "--workspace", str(tmp_path)], agentdesk_home)
    assert done.returncode == 2
    assert "less than one hour apart" in done.stderr and "Traceback" not in done.stderr
    assert agentdesk(["automation", "list", "--json"], agentdesk_home).stdout == ""


def test_add_list_show_pause_resume_rm(agentdesk_home, tmp_path):
    done = agentdesk(["automation", "add", "Notes digest", "--objective", "Summarise notes/", "--schedule",
                      "0 7 * * 1-5", "--timezone", "Europe/Berlin", "--allow", "fs.read=30m",
                      "--workspace", str(tmp_path)], agentdesk_home)
    assert done.returncode == 0, done.stderr
    assert "every weekday at 07:00 (Europe/Berlin)" in done.stdout and "next run" in done.stdout
    [line] = agentdesk(["automation", "list", "--json"], agentdesk_home).stdout.splitlines()
    listed = json.loads(line)
    assert listed["words"] == "every weekday at 07:00 (Europe/Berlin)"
    assert listed["policy"] == [{"scope": "fs.read", "duration_s": 1800.0}] and listed["last_outcome"] is None
    aid = listed["id"]
    assert agentdesk(["automation", "pause", aid], agentdesk_home).returncode == 0
    assert agentdesk(["automation", "resume", aid], agentdesk_home).returncode == 0
    shown = json.loads(agentdesk(["automation", "show", aid, "--json"], agentdesk_home).stdout)
    assert [h["action"] for h in shown["history"]] == ["create", "pause", "resume"]
    assert agentdesk(["automation", "rm", aid], agentdesk_home).returncode == 0
    assert agentdesk(["automation", "list"], agentdesk_home).stdout == ""
    missing = agentdesk(["automation", "show", aid], agentdesk_home)
    assert missing.returncode == 2 and "no automation" in missing.stderr


def test_run_now_denies_outside_the_policy_and_the_inbox_adds_it(agentdesk_home, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    added = agentdesk(["automation", "add", "Scribe", "--objective", "write a note", "--schedule", "every 1d",
                       "--allow", "fs.read=10m", "--workspace", str(ws)], agentdesk_home)
    aid = added.stdout.split()[1].rstrip(":")
    with FakeProviderServer() as srv:
        srv.script(Turn(parts=(ToolCall("fs_write", {"path": "note.md", "content": "x"}),)),
                   Turn(parts=(Text("I was not allowed to write note.md."),)))
        done = agentdesk(["automation", "run", aid], agentdesk_home, anthropic_env(srv))
        srv.assert_done()
    assert done.returncode == 4, done.stderr  # its only action was refused: blocked, not succeeded
    assert done.stdout.startswith("blocked: every action it tried was refused") and "not allowed" in done.stdout
    assert not (ws / "note.md").exists()
    inbox = agentdesk(["inbox"], agentdesk_home)
    [line] = inbox.stdout.splitlines()
    assert "fs.write" in line and "outside the automation's policy" in line
    item = line.split()[0]
    unconfirmed = agentdesk(["inbox", "add", item], agentdesk_home)
    assert unconfirmed.returncode == 2 and "--yes" in unconfirmed.stderr
    assert agentdesk(["inbox", "add", item, "--for", "15m", "--yes"], agentdesk_home).returncode == 0
    assert agentdesk(["inbox"], agentdesk_home).stdout.strip() == "The Inbox is empty."
    shown = json.loads(agentdesk(["automation", "show", aid, "--json"], agentdesk_home).stdout)
    assert [p["scope"] for p in shown["policy"]] == ["fs.read", "fs.write"]
    assert shown["runs"][0]["outcome"] == "blocked"


def test_automation_create_is_confirmed_on_the_terminal_with_the_whole_definition(agentdesk_home, tmp_path):
    from ledger import Ledger
    from tests.cli.test_ask import ask_on_a_tty

    proposal = {"name": "Notes digest", "objective": "Summarise notes/", "schedule": "0 7 * * 1-5",
                "timezone": "Europe/Berlin", "policy": [{"scope": "fs.read", "minutes": 30}]}
    with FakeProviderServer() as srv:
        srv.script(Turn(parts=(ToolCall("automation_create", proposal),)), Turn(parts=(Text("Created."),)))
        status, seen, out, err = ask_on_a_tty(
            ["make a digest", "--workspace", str(tmp_path)], agentdesk_home,
            anthropic_env(srv), b"[N] Deny", b"y\n")
    assert status == 0, seen + err
    for line in (b"wants to call automation_create (automation.create)",
                 b"asks every time: automation_create is confirmed every time: no lease or policy covers it",
                 b"  Name: Notes digest", b"  Runs: every weekday at 07:00 (Europe/Berlin)",
                 b"  Objective: Summarise notes/", b"  Each run may use: fs.read for 30 min",
                 b"Allow this one call? [y] Allow once"):
        assert line in seen, seen
    assert b"Created." in out
    [line] = agentdesk(["automation", "list", "--json"], agentdesk_home).stdout.splitlines()
    assert json.loads(line)["words"] == "every weekday at 07:00 (Europe/Berlin)"
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        [confirm] = ledger.page(kind="confirm")
        [call] = ledger.page(kind="tool")
        assert confirm.actor == "user" and confirm.tool == "automation_create" and call.confirmed == confirm.seq


def test_automation_create_without_a_terminal_is_denied_and_nothing_is_made(agentdesk_home, tmp_path):
    from tests.cli.test_ask import ask

    proposal = {"name": "n", "objective": "o", "schedule": "every 1d", "policy": []}
    with FakeProviderServer() as srv:
        # --grant cannot stand in for the confirmation: it is refused up front, saying how it can be allowed
        refused = ask(["make one", "--workspace", str(tmp_path), "--grant", "automation.create=5m"], agentdesk_home,
                      anthropic_env(srv))
        assert refused.returncode == 2 and "a person confirms each of these calls" in refused.stderr
        assert "from a terminal" in refused.stderr and "settings.json" not in refused.stderr
        srv.script(Turn(parts=(ToolCall("automation_create", proposal),)), Turn(parts=(Text("Not made."),)))
        done = ask(["make one", "--workspace", str(tmp_path)], agentdesk_home, anthropic_env(srv))
    assert done.returncode == 0, done.stderr
    assert "permission denied" in done.stderr
    assert agentdesk(["automation", "list", "--json"], agentdesk_home).stdout == ""


def test_inbox_add_of_a_call_refused_at_once_says_why_in_words(agentdesk_home, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    added = agentdesk(["automation", "add", "Fetcher", "--objective", "fetch", "--schedule", "every 1d",
                       "--allow", "shell.exec=10m", "--workspace", str(ws)], agentdesk_home)
    aid = added.stdout.split()[1].rstrip(":")
    with FakeProviderServer() as srv:
        srv.script(Turn(parts=(ToolCall("shell_exec", {"command": "curl example.test", "network": True}),)),
                   Turn(parts=(Text("Could not fetch."),)))
        done = agentdesk(["automation", "run", aid], agentdesk_home, anthropic_env(srv))
        srv.assert_done()
    assert done.returncode == 4 and done.stdout.startswith("blocked")
    [line] = agentdesk(["inbox"], agentdesk_home).stdout.splitlines()
    refused = agentdesk(["inbox", "add", line.split()[0], "--yes"], agentdesk_home)
    assert refused.returncode == 2
    assert "Adding shell.exec.net to the policy of “Fetcher” would not help" in refused.stderr
    shown = json.loads(agentdesk(["automation", "show", aid, "--json"], agentdesk_home).stdout)
    assert [p["scope"] for p in shown["policy"]] == ["shell.exec"]
