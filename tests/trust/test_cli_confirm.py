"""``agentdesk ask`` asks a one-off confirmation on a TTY (and denies it without one)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys

import pytest

from ledger import Ledger
from tests.cli.test_ask import ROOT, anthropic_env, ask
from tests.fakes import FakeProviderServer, Text, ToolCall as FakeCall, Turn


@pytest.fixture
def srv():
    with FakeProviderServer() as s:
        yield s


def _confirm_writes(home) -> None:
    (home / "settings.json").write_text(json.dumps({"policies": {"fs.write": "confirm"}}))


def test_on_a_terminal_a_confirm_policy_asks_once_per_call(srv, tmp_path, agentdesk_home):
    import pty

    _confirm_writes(agentdesk_home)
    srv.script(Turn(parts=(FakeCall("fs_write", {"path": "t.txt", "content": "tty\n"}),)),
               Turn(parts=(Text("written"),)))
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "OPENAI", "GEMINI", "GOOGLE"))}
    env.update({"AGENTDESK_HOME": str(agentdesk_home), "PYTHONPATH": str(ROOT), **anthropic_env(srv)})
    proc = subprocess.Popen([sys.executable, "-m", "desktop.launcher", "ask", "write t", "--workspace", str(tmp_path),
                             "--grant", "fs.write=5m"],
                            stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    os.close(slave)
    seen = b""
    try:
        while b"[N] Deny" not in seen:
            ready, _, _ = select.select([proc.stderr], [], [], 30)
            assert ready, f"no confirmation prompt; stderr so far: {seen!r}"
            chunk = os.read(proc.stderr.fileno(), 4096)
            assert chunk, f"ask ended before prompting: {seen!r}"
            seen += chunk
        os.write(master, b"y\n")
        out, err = proc.communicate(timeout=30)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, seen + err
    assert b"asks every time: your policy for fs.write is to confirm every call" in seen
    assert b"[y] Allow once" in seen and (tmp_path / "t.txt").read_text() == "tty\n"
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        [confirm] = ledger.page(kind="confirm")
        [call] = ledger.page(kind="tool")
        assert confirm.actor == "user" and call.confirmed == confirm.seq and call.lease is None


def test_without_a_terminal_a_confirmation_is_denied_even_with_a_grant(srv, tmp_path, agentdesk_home):
    _confirm_writes(agentdesk_home)
    srv.script(Turn(parts=(FakeCall("fs_write", {"path": "t.txt", "content": "x"}),)), Turn(parts=(Text("ok"),)))
    done = ask(["write t", "--workspace", str(tmp_path), "--grant", "fs.write=5m"], agentdesk_home, anthropic_env(srv))
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "t.txt").exists() and "permission denied" in done.stderr
