"""``agentdesk ask`` through a running kernel keeps the in-process behaviour: lease prompts on a terminal,
``--grant`` with its warnings, Ctrl-C kills the agent (exit 130). It attaches, spawns and sends with
blocking sockets and starts its event loop only after the send (issue 11's start-up goal), so each of
these crosses that hand-over."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess

from tests.cli.test_ask import ask_on_a_tty
from tests.fakes import Text, ToolCall as FakeCall, Turn

from .conftest import ROOT, agentdesk


def _ps_all(env: dict[str, str]) -> list[dict]:
    listed = subprocess.run(agentdesk("ps", "--all", "--json"), env=env, cwd=ROOT, capture_output=True, text=True,
                            timeout=60)
    assert listed.returncode == 0, listed.stderr
    return [json.loads(line) for line in listed.stdout.splitlines()]


def test_on_a_terminal_the_lease_is_asked_here_and_granted_in_the_kernel(kernel_proc, kernel_env, srv, tmp_path):
    srv.script(Turn(parts=(FakeCall("fs_write", {"path": "t.txt", "content": "tty\n"}),)),
               Turn(parts=(Text("written"),)))
    status, seen, out, err = ask_on_a_tty(["write t", "--workspace", str(tmp_path)], kernel_proc.home, kernel_env,
                                          b"[d] Deny", b"1\n")  # "1": 5 minutes
    assert status == 0, seen + err
    assert b"asks for fs.write to call fs_write path=t.txt" in seen
    assert (tmp_path / "t.txt").read_text() == "tty\n" and b"written" in out
    assert len(srv.requests) == 2  # the agent ran in the kernel
    [row] = _ps_all(kernel_env)
    assert row["state"] == "idle"


def test_grants_up_front_are_granted_in_the_kernel_and_a_typo_is_named(kernel_proc, kernel_env, srv, tmp_path):
    srv.script(Turn(parts=(FakeCall("fs_write", {"path": "g.txt", "content": "granted\n"}),)),
               Turn(parts=(Text("done"),)))
    done = subprocess.run(agentdesk("ask", "write g", "--workspace", str(tmp_path), "--grant", "fs.write=5m",
                                    "--grant", "fs.wirte"),
                          env=kernel_env, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "granted fs.write for 5 minutes" in done.stderr and "granted fs.wirte for 15 minutes" in done.stderr
    assert "no tool uses the scope fs.wirte" in done.stderr and "Traceback" not in done.stderr
    assert (tmp_path / "g.txt").read_text() == "granted\n" and "done" in done.stdout
    bad = subprocess.run(agentdesk("ask", "x", "--workspace", str(tmp_path), "--grant", " fs.write"),
                         env=kernel_env, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and "bad --grant" in bad.stderr
    assert len(_ps_all(kernel_env)) == 1  # the bad grant stopped it before any spawn


def test_ctrl_c_kills_the_agent_in_the_kernel_and_exits_130(kernel_proc, kernel_env, srv, tmp_path):
    srv.script(Turn(parts=(Text("a long answer that streams slowly " * 4, chunks=40),), delay=0.3))
    proc = subprocess.Popen(agentdesk("ask", "talk", "--workspace", str(tmp_path)), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=kernel_env, cwd=ROOT)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 30)  # the first words have arrived: the loop runs
        assert ready and os.read(proc.stdout.fileno(), 64)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert b"interrupted" in err and b"Traceback" not in err
    [row] = _ps_all(kernel_env)
    assert row["state"] == "killed"


def test_a_grant_confirmed_on_every_call_is_refused_and_an_unanswerable_request_refused_by_the_kernel(
        kernel_proc, kernel_env, srv, tmp_path):
    bad = subprocess.run(agentdesk("ask", "x", "--workspace", str(tmp_path), "--grant", "shell.exec.net=5m"),
                         env=kernel_env, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2, bad.stderr
    assert "--grant shell.exec.net would allow nothing: shell_exec is confirmed on every call" in bad.stderr
    assert "from a terminal" in bad.stderr and "Traceback" not in bad.stderr
    assert _ps_all(kernel_env) == []  # refused before any spawn
    srv.script(Turn(parts=(FakeCall("fs_write", {"path": "n.txt", "content": "no\n"}),)), Turn(parts=(Text("fine"),)))
    done = subprocess.run(agentdesk("ask", "write n", "--workspace", str(tmp_path)), env=kernel_env, cwd=ROOT,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "n.txt").exists()
    listed = subprocess.run(agentdesk("ledger", "--kind", "denied", "--json"), env=kernel_env, cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    [denied] = [json.loads(line) for line in listed.stdout.splitlines()]
    assert denied["actor"] == "kernel" and denied["scope"] == "fs.write" and denied["reason"], denied


def test_the_kernel_going_away_mid_run_is_a_failure_not_bad_usage(kernel_proc, kernel_env, srv, tmp_path):
    srv.script(Turn(parts=(Text("a long answer that streams slowly " * 4, chunks=40),), delay=0.3))
    proc = subprocess.Popen(agentdesk("ask", "talk", "--workspace", str(tmp_path)), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=kernel_env, cwd=ROOT)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 30)  # the first words have arrived: the agent runs
        assert ready and os.read(proc.stdout.fileno(), 64)
        kernel_proc.kill9()
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 4, err
    assert b"the kernel stopped serving this agent" in err and b"Traceback" not in err


def test_resume_ask_agent_and_show_go_through_the_running_kernel(kernel_proc, kernel_env, srv, tmp_path):
    srv.script(Turn(parts=(Text("a long answer that streams slowly " * 4, chunks=40),), delay=0.3),
               Turn(parts=(Text("back at it"),)), Turn(parts=(Text("the follow-up answer"),)))
    proc = subprocess.Popen(agentdesk("ask", "talk", "--workspace", str(tmp_path)), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=kernel_env, cwd=ROOT)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready and os.read(proc.stdout.fileno(), 64)
        kernel_proc.kill9()  # the agent is cut mid-reply; it comes back interrupted
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    kernel_proc.start()
    [row] = _ps_all(kernel_env)
    assert row["state"] == "interrupted", row

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(agentdesk(*args), env=kernel_env, cwd=ROOT, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=60)

    resumed = run("resume", row["id"])
    assert resumed.returncode == 0, resumed.stderr
    assert "back at it" in resumed.stdout
    follow = run("ask", "and then?", "--agent", row["id"])
    assert follow.returncode == 0, follow.stderr
    assert "the follow-up answer" in follow.stdout
    assert [r["id"] for r in _ps_all(kernel_env)] == [row["id"]]  # the same agent, in the kernel
    shown = run("show", row["id"], "--json")
    assert shown.returncode == 0, shown.stderr
    roles = [json.loads(line)["role"] for line in shown.stdout.splitlines()]
    texts = shown.stdout
    assert roles[0] == "user" and roles[-1] == "assistant"
    assert "talk" in texts and "back at it" in texts and "and then?" in texts and "the follow-up answer" in texts


def test_resume_without_a_kernel_runs_the_agent_in_its_own_process(kernel_proc, kernel_env, srv, tmp_path):
    srv.script(Turn(parts=(Text("a long answer that streams slowly " * 4, chunks=40),), delay=0.3),
               Turn(parts=(Text("resumed here"),)))
    proc = subprocess.Popen(agentdesk("ask", "talk", "--workspace", str(tmp_path)), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=kernel_env, cwd=ROOT)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready and os.read(proc.stdout.fileno(), 64)
        kernel_proc.kill9()  # and not started again: resume runs the agent in-process
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    listed = subprocess.run(agentdesk("ledger", "--kind", "agent.spawn", "--json"), env=kernel_env, cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    [spawn] = [json.loads(line) for line in listed.stdout.splitlines()]
    resumed = subprocess.run(agentdesk("resume", spawn["actor"]), env=kernel_env, cwd=ROOT, stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    assert "resumed here" in resumed.stdout and "Traceback" not in resumed.stderr


def test_a_provider_environment_the_kernel_does_not_use_is_refused_in_a_sentence(kernel_proc, kernel_env, srv,
                                                                                  tmp_path):
    from tests.fakes import FakeProviderServer

    with FakeProviderServer() as other:
        other.script(Turn(parts=(Text("from the caller's server"),)))
        cases = [({"ANTHROPIC_BASE_URL": other.anthropic_base_url}, "ANTHROPIC_BASE_URL", "another base URL", []),
                 ({"ANTHROPIC_API_KEY": "sk-caller-secret-1234"}, "ANTHROPIC_API_KEY", "another API key", []),
                 ({"OPENAI_BASE_URL": other.openai_base_url, "OPENAI_API_KEY": "sk-other-5678"}, "OPENAI_BASE_URL",
                  "no base URL for openai-chat", ["--provider", "openai-chat"])]
        for extra, variable, words, args in cases:
            done = subprocess.run(agentdesk("ask", "hi", "--workspace", str(tmp_path), *args),
                                  env={**kernel_env, **extra}, cwd=ROOT, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=60)
            assert done.returncode == 2, done.stderr
            assert f"{variable} is set here, but the running kernel uses {words}" in done.stderr, done.stderr
            assert "agentdesk kernel --stop" in done.stderr
            for value in extra.values():
                assert value not in done.stderr  # neither a key nor a URL is printed
        assert other.requests == [] and srv.requests == []
    assert _ps_all(kernel_env) == []  # refused before any spawn
    srv.script(Turn(parts=(Text("same settings"),)))
    same = subprocess.run(agentdesk("ask", "hi", "--workspace", str(tmp_path)), env=kernel_env, cwd=ROOT,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert same.returncode == 0 and "same settings" in same.stdout, same.stderr


def test_images_are_attached_in_the_running_kernel(kernel_proc, kernel_env, srv, tmp_path):
    from tests.images.pictures import screenshot, size_of

    (tmp_path / "s.png").write_bytes(screenshot(2000, 1500, seed=5))
    srv.script(Turn(parts=(Text("a screenshot"),)))
    done = subprocess.run(agentdesk("ask", "what is this?", "--workspace", str(tmp_path), "--image",
                                    str(tmp_path / "s.png")),
                          env=kernel_env, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    [request] = srv.requests
    [image] = request.images
    assert image.role == "user" and max(size_of(image.data)) <= 1568
