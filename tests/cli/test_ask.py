"""``agentdesk ask`` end to end: the console script's ``main`` in this process (tests/cli/inproc.py), the
real Anthropic SDK, the loopback fake. What is about the process itself (a prompt on a real TTY, Ctrl-C's
exit status) runs a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ledger import FileChange, Ledger, ToolCall
from tests.cli.inproc import agentdesk
from tests.fakes import FakeProviderServer, HttpError, Text, ToolCall as FakeCall, Turn, Usage

ROOT = Path(__file__).resolve().parents[2]


def ask(args: list[str], home: Path, env_extra: dict[str, str] | None = None, stdin: str = "") -> subprocess.CompletedProcess:
    return agentdesk(["ask", *args], home, env_extra, stdin)


def ask_on_a_tty(args: list[str], home: Path, env_extra: dict[str, str], prompt: bytes,
                 answer: bytes) -> tuple[int, bytes, bytes, bytes]:
    """``agentdesk ask`` with a pty as stdin: read stderr until ``prompt`` shows, type ``answer``, let it end.
    Returns (exit status, stderr up to the prompt, stdout, the rest of stderr)."""
    import pty
    import select

    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "OPENAI", "GEMINI", "GOOGLE"))}
    env.update({"AGENTDESK_HOME": str(home), "PYTHONPATH": str(ROOT), **env_extra})
    proc = subprocess.Popen([sys.executable, "-m", "desktop.launcher", "ask", *args],
                            stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    os.close(slave)
    seen = b""
    try:
        while prompt not in seen:  # a real process starting: wait for its prompt, with a deadline
            ready, _, _ = select.select([proc.stderr], [], [], 60)
            assert ready, f"no prompt {prompt!r}; stderr so far: {seen!r}"
            chunk = os.read(proc.stderr.fileno(), 4096)
            assert chunk, f"ask ended before prompting: {seen!r}"
            seen += chunk
        os.write(master, answer)
        out, err = proc.communicate(timeout=30)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, seen, out, err


@pytest.fixture
def srv():
    with FakeProviderServer() as s:
        yield s


def anthropic_env(srv: FakeProviderServer) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.anthropic_base_url}


def test_write_read_answer_then_undo_restores_the_workspace(srv, tmp_path, agentdesk_home):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "keep.txt").write_text("untouched\n")
    srv.script(
        Turn(parts=(Text("I'll write the note."), FakeCall("fs_write", {"path": "notes/todo.md", "content": "- milk\n"})),
             usage=Usage(120, 30)),
        Turn(parts=(FakeCall("fs_read", {"path": "notes/todo.md"}),), usage=Usage(160, 12)),
        Turn(parts=(Text("The note says: milk."),), usage=Usage(190, 9)),
    )
    done = ask(["write a todo", "--workspace", str(ws), "--name", "scribe", "--grant", "fs=5m"],
               agentdesk_home, anthropic_env(srv))
    assert done.returncode == 0, done.stderr
    assert "The note says: milk." in done.stdout and "I'll write the note." in done.stdout
    assert "[tool] fs_write ok" in done.stderr and "[tool] fs_read ok" in done.stderr
    assert (ws / "notes/todo.md").read_text() == "- milk\n"
    srv.assert_done()

    # The model saw the tool results, in Anthropic's wire shape.
    second = srv.requests[1].body["messages"]
    assert second[-1]["content"][0]["type"] == "tool_result"
    third = srv.requests[2].body["messages"]
    assert "- milk" in json.dumps(third[-1]["content"])

    with Ledger(agentdesk_home / "ledger.db") as ledger:
        spawn = ledger.page(kind="agent.spawn")[0]
        grant = ledger.page(kind="lease.grant")[0]
        calls = ledger.page(kind="tool")
        [change] = ledger.page(kind="fs.write")
        assert spawn.name == "scribe" and spawn.actor.startswith("a")
        assert [c.tool for c in calls] == ["fs_read", "fs_write"]
        assert all(isinstance(c, ToolCall) and c.lease == grant.seq and c.actor == spawn.actor for c in calls)
        assert isinstance(change, FileChange) and change.cause == calls[1].seq
        assert change.path == str((ws / "notes/todo.md").resolve())
        report = ledger.undo(spawn.seq)
        assert report.ok and report.files == [change.path]
    assert not (ws / "notes/todo.md").exists() and (ws / "keep.txt").read_text() == "untouched\n"


def test_without_a_grant_and_without_a_tty_writes_are_denied(srv, tmp_path, agentdesk_home):
    srv.script(Turn(parts=(FakeCall("fs_write", {"path": "x.txt", "content": "x"}),)),
               Turn(parts=(Text("I could not write it."),)))
    done = ask(["write x", "--workspace", str(tmp_path)], agentdesk_home, anthropic_env(srv))
    assert done.returncode == 0, done.stderr
    assert "permission denied" in done.stderr and not (tmp_path / "x.txt").exists()
    result = srv.requests[1].body["messages"][-1]["content"][0]
    assert result["is_error"] is True and "fs.write" in json.dumps(result["content"])


def test_budget_pause_exits_3(srv, tmp_path, agentdesk_home):
    srv.script(Turn(parts=(FakeCall("fs_list", {}),), usage=Usage(900, 200)))
    done = ask(["look", "--workspace", str(tmp_path), "--budget", "1000", "--grant", "fs.read"],
               agentdesk_home, anthropic_env(srv))
    assert done.returncode == 3, done.stderr
    assert "paused: budget reached: 1,100 of 1,000 tokens used" in done.stderr
    srv.assert_done()


def test_provider_failure_exits_4_with_a_readable_reason(srv, tmp_path, agentdesk_home):
    srv.script(*[Turn(fault=HttpError(529, retry_after=0.001)) for _ in range(4)])
    (agentdesk_home / "settings.json").write_text(json.dumps({"max_retries": 3, "retry_cap_s": 0.01}))
    done = ask(["hi", "--workspace", str(tmp_path)], agentdesk_home, anthropic_env(srv))
    assert done.returncode == 4, done.stderr
    assert "failed: the provider is overloaded (anthropic: HTTP 529" in done.stderr
    assert "Traceback" not in done.stderr
    srv.assert_done()


@pytest.mark.parametrize("args, needle", [
    (["hi", "--provider", "nope"], "invalid choice"),
    (["hi", "--grant", "fs.write=forever"], "bad --grant"),
    (["hi", "--budget", "0"], "must be positive"),
    (["hi", "--workspace", "/no/such/folder"], "not a folder"),
])
def test_bad_usage_exits_2_with_one_line(args, needle, agentdesk_home):
    done = ask(args, agentdesk_home, {"ANTHROPIC_API_KEY": "k"})
    assert done.returncode == 2
    assert needle in done.stderr and "Traceback" not in done.stderr


def test_missing_key_names_the_variable(tmp_path, agentdesk_home):
    done = ask(["hi", "--workspace", str(tmp_path)], agentdesk_home)
    assert done.returncode == 2
    assert "ANTHROPIC_API_KEY" in done.stderr and "Traceback" not in done.stderr


def test_on_a_terminal_the_lease_is_asked_and_granted(srv, tmp_path, agentdesk_home):
    srv.script(Turn(parts=(FakeCall("fs_write", {"path": "t.txt", "content": "tty\n"}),)),
               Turn(parts=(Text("written"),)))
    # the prompt is on stderr; answer "1" (5 minutes)
    status, seen, out, err = ask_on_a_tty(["write t", "--workspace", str(tmp_path)], agentdesk_home,
                                          anthropic_env(srv), b"[d] Deny", b"1\n")
    assert status == 0, seen + err
    assert b"asks for fs.write to call fs_write path=t.txt" in seen and b"+tty" in seen
    assert b"[1] 5 minutes" in seen and b"[4] Working day" in seen
    assert (tmp_path / "t.txt").read_text() == "tty\n" and b"written" in out
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        [grant] = ledger.page(kind="lease.grant")
        assert grant.scope == "fs.write" and grant.duration_s == 300 and grant.actor == "user"


def test_ctrl_c_kills_the_agent_and_exits_130(srv, tmp_path, agentdesk_home):
    import select
    import signal

    srv.script(Turn(parts=(Text("a long answer that streams slowly " * 4, chunks=40),), delay=0.3))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "OPENAI", "GEMINI", "GOOGLE"))}
    env.update({"AGENTDESK_HOME": str(agentdesk_home), "PYTHONPATH": str(ROOT), **anthropic_env(srv)})
    proc = subprocess.Popen([sys.executable, "-m", "desktop.launcher", "ask", "talk", "--workspace", str(tmp_path)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 60)  # the first words have arrived
        assert ready and os.read(proc.stdout.fileno(), 64)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert b"interrupted" in err and b"Traceback" not in err
    assert srv.wait_idle(5)  # the kill closed the stream: the server saw the client go
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        [kill] = ledger.page(kind="agent.kill")
        assert "Ctrl-C" in kill.reason


def test_a_shell_command_changes_are_recorded_and_undone(srv, tmp_path, agentdesk_home):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "old.txt").write_text("old\n")
    command = "echo new > new.txt && rm old.txt && echo done"
    srv.script(Turn(parts=(FakeCall("shell_exec", {"command": command}),)), Turn(parts=(Text("ran it"),)))
    done = ask(["tidy", "--workspace", str(ws), "--grant", "shell.exec=5m"], agentdesk_home, anthropic_env(srv))
    assert done.returncode == 0, done.stderr
    assert (ws / "new.txt").read_text() == "new\n" and not (ws / "old.txt").exists()
    told = json.dumps(srv.requests[1].body["messages"][-1])
    assert "done" in told and "0" in told  # the model saw the output and the exit code
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        [call] = ledger.page(kind="tool")
        changes = ledger.page(kind="fs.write")
        assert call.tool == "shell_exec" and {c.cause for c in changes} == {call.seq}
        assert len(changes) == 2
        spawn = ledger.page(kind="agent.spawn")[0]
        assert ledger.undo(spawn.seq).ok
    assert (ws / "old.txt").read_text() == "old\n" and not (ws / "new.txt").exists()


PROVIDER_ENV = {
    "anthropic": lambda s: {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": s.anthropic_base_url},
    "openai": lambda s: {"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": s.openai_base_url},
    "openai-chat": lambda s: {"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": s.openai_base_url},
    "gemini": lambda s: {"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": s.gemini_base_url},
}
PROTOCOL = {"anthropic": "anthropic", "openai": "openai_responses", "openai-chat": "openai_chat", "gemini": "gemini"}


@pytest.mark.parametrize("provider", list(PROVIDER_ENV))
def test_every_provider_runs_write_read_answer(provider, srv, tmp_path, agentdesk_home):
    ws = tmp_path / "ws"
    ws.mkdir()
    srv.script(
        Turn(parts=(Text("Writing."), FakeCall("fs_write", {"path": "n.txt", "content": "kiwi\n"})), usage=Usage(50, 9)),
        Turn(parts=(FakeCall("fs_read", {"path": "n.txt"}),), usage=Usage(70, 6)),
        Turn(parts=(Text("It says kiwi."),), usage=Usage(90, 4)),
    )
    done = ask(["note kiwi", "--provider", provider, "--model", "m-1", "--workspace", str(ws), "--grant", "fs=5m"],
               agentdesk_home, PROVIDER_ENV[provider](srv))
    assert done.returncode == 0, done.stderr
    assert "It says kiwi." in done.stdout and (ws / "n.txt").read_text() == "kiwi\n"
    assert [r.protocol for r in srv.requests] == [PROTOCOL[provider]] * 3
    assert "kiwi" in json.dumps(srv.requests[2].body)  # the read result went back to the model
    srv.assert_done()
    with Ledger(agentdesk_home / "ledger.db") as ledger:
        spawn = ledger.page(kind="agent.spawn")[0]
        assert spawn.provider == provider and spawn.model == "m-1"
        assert [c.tool for c in ledger.page(kind="tool")] == ["fs_read", "fs_write"]
        assert ledger.undo(spawn.seq).ok
    assert not (ws / "n.txt").exists()


def test_a_rejected_key_and_an_unknown_model_are_one_clear_line(tmp_path, agentdesk_home):
    with FakeProviderServer(expected_key="right-key", known_models={"real-model"}) as srv:
        env = {"ANTHROPIC_API_KEY": "wrong-key", "ANTHROPIC_BASE_URL": srv.anthropic_base_url}
        done = ask(["hi", "--workspace", str(tmp_path), "--model", "real-model"], agentdesk_home, env)
        assert done.returncode == 4
        [line] = done.stderr.strip().splitlines()
        assert "API key" in line and "ANTHROPIC_API_KEY" in line
        env["ANTHROPIC_API_KEY"] = "right-key"
        done = ask(["hi", "--workspace", str(tmp_path), "--model", "no-such-model"], agentdesk_home, env)
        assert done.returncode == 4
        [line] = done.stderr.strip().splitlines()
        assert "no-such-model" in line and "model" in line


def test_the_desktop_says_plainly_when_there_is_no_display():
    from desktop.launcher import display_problem

    assert "DISPLAY" in display_problem({}, "linux")
    assert display_problem({"DISPLAY": ":0"}, "linux") is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert display_problem({}, "darwin") is None


def test_the_api_key_never_reaches_the_ledger_or_the_output(tmp_path, agentdesk_home):
    key = "sk-ant-very-secret-0123456789"
    with FakeProviderServer(expected_key=key) as srv:
        srv.script(Turn(parts=(FakeCall("shell_exec", {"command": "env; echo done"}),)),
                   Turn(parts=(Text("ok"),)))
        done = ask(["hi", "--workspace", str(tmp_path), "--grant", "shell.exec"], agentdesk_home,
                   {"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": srv.anthropic_base_url})
        assert done.returncode == 0, done.stderr
        told = json.dumps(srv.requests[1].body)
        assert "done" in told and key not in told  # the command's environment had no key either
    assert key not in done.stdout + done.stderr
    for path in agentdesk_home.rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), path
