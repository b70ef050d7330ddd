"""``agentdesk account add|list|rm`` (the console script's ``main`` in this process, tests/cli/inproc.py)
against the real loopback servers."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path

from tests.cli.inproc import agentdesk
from tests.fakes import mail_servers as ms


def account(args: list[str], home: Path, stdin: str = "") -> subprocess.CompletedProcess:
    return agentdesk(["account", *args], home, {"AGENTDESK_KEYRING": "off"}, stdin)


def _add_args(servers) -> list[str]:
    return ["add", "work", "--address", ms.USER, "--imap-host", "127.0.0.1", "--imap-port", str(servers.dovecot.port),
            "--imap-tls", "none", "--smtp-host", "127.0.0.1", "--smtp-port", str(servers.smtp.port), "--smtp-tls", "none",
            "--caldav-url", servers.radicale.url]


def test_add_checks_the_servers_and_keeps_the_password_owner_only(servers, tmp_path):
    home = tmp_path / "home"
    wrong = account(_add_args(servers), home, stdin="wrong\n")
    assert wrong.returncode == 1
    lines = wrong.stderr.strip().splitlines()
    assert [line.split(": ")[1] for line in lines[:3]] == ["IMAP", "SMTP", "CalDAV"]
    assert all("refused the user name or password" in line for line in lines[:3]) and "nothing saved" in lines[3]
    assert "wrong" not in wrong.stderr and not (home / "accounts.json").exists()

    ok = account(_add_args(servers), home, stdin=ms.PASSWORD + "\n")
    assert ok.returncode == 0, ok.stderr
    assert "keys.json" in ok.stdout
    keys = home / "keys.json"
    assert json.loads(keys.read_text()) == {"account:work": ms.PASSWORD}
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600
    assert ms.PASSWORD not in (home / "accounts.json").read_text()

    listed = account(["list"], home)
    assert listed.returncode == 0 and "work" in listed.stdout and ms.PASSWORD not in listed.stdout

    assert account(["rm", "work"], home).returncode == 0
    assert json.loads(keys.read_text()) == {} and account(["list"], home).stdout == ""
    assert account(["rm", "work"], home).returncode == 1
