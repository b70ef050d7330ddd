"""The kernel as its own process: real subprocesses, the real Anthropic SDK, the loopback fake.

Waiting is on observable state only (the socket's handshake with a deadline,
events, process exits); nothing sleeps.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import subprocess

from kernel.api import AgentSpawned, Grant, LeaseRequested, TextDelta, ToolCallStarted, TurnFinished
from tests.fakes import Text, ToolCall as FakeCall, Turn, Usage

from .attached import (
    attach, calls_of, cli, killed_and_back, next_event, run, script_slow_once, texts, workspace, working_agent,
)
from .conftest import ROOT, KernelProcess, agentdesk, hello

WATCHER = r"""
import asyncio, sys
from pathlib import Path
from kernel.api import TextDelta
from kernel.service.client import RemoteKernel

async def main():
    k = await RemoteKernel.for_home(Path(sys.argv[1]), client="watcher").start()
    k.subscribe(lambda e: print("delta", flush=True) if isinstance(e, TextDelta) else None)
    print("ready", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


def test_one_kernel_per_home_on_an_owner_only_socket(kernel_proc, kernel_env):
    assert stat.S_IMODE(os.stat(kernel_proc.socket).st_mode) == 0o600
    second = cli(kernel_env, "kernel")
    assert second.returncode == 1 and "already runs" in second.stderr
    assert hello(kernel_proc.socket)["result"]["pid"] == kernel_proc.proc.pid  # the first still serves


def test_an_ask_in_a_terminal_shows_in_another_client_which_answers_its_lease(kernel_proc, kernel_env, srv, tmp_path):
    ws = workspace(tmp_path)
    srv.script(Turn(parts=(Text("Writing."), FakeCall("fs_write", {"path": "a.md", "content": "hi\n"})),
                    usage=Usage(50, 10)),
               Turn(parts=(Text("Done."),), usage=Usage(60, 5)))

    async def body():
        k, events = await attach(kernel_proc.home, answers_leases=True)
        try:
            ask = await asyncio.create_subprocess_exec(
                *agentdesk("ask", "write a.md", "--workspace", str(ws), "--name", "remote"), env=kernel_env,
                cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            spawned = await next_event(events, AgentSpawned)
            assert spawned.agent.name == "remote"
            assert [a.id for a in k.agents.list()] == [spawned.agent.id]
            asked = await next_event(events, LeaseRequested)
            assert asked.request.agent_id == spawned.agent.id and asked.request.scope == "fs.write"
            assert k.leases.resolve(asked.request.id, Grant(300.0)) is True
            out, err = await ask.communicate()
            return ask.returncode, out.decode(), err.decode(), spawned.agent.id, k.agents.get(spawned.agent.id)
        finally:
            await k.aclose()

    code, out, err, agent_id, info = run(body())
    assert code == 0, err
    assert "Writing." in out and "Done." in out and "[tool] fs_write ok" in err
    assert (ws / "a.md").read_text() == "hi\n"
    assert info.state == "idle" and info.used == 125
    srv.assert_done()

    listed = cli(kernel_env, "ps", "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout)["id"] == agent_id
    status = cli(kernel_env, "status", "--json")
    report = json.loads(status.stdout)
    assert status.returncode == 0 and report["kernel"] == "up" and report["agents"] == {"idle": 1}
    assert report["providers_with_key"] == ["anthropic"] and "test-key" not in status.stdout
    assert report["ledger_intact"] and report["ledger_verified_through"] == 0  # checked at start, on an empty ledger
    assert report["overlay"] and report["sandbox_mode"] == "overlay (user-namespace mount)"  # the kernel's own probe
    words = cli(kernel_env, "status")
    assert "sandbox: overlay (user-namespace mount)" in words.stdout.splitlines()
    killed = cli(kernel_env, "kill", agent_id)
    assert killed.returncode == 0 and "killed" in killed.stdout
    assert cli(kernel_env, "ps", "--json").stdout == ""
    everything = cli(kernel_env, "ps", "--all", "--json")
    rows = [json.loads(line) for line in everything.stdout.splitlines()]
    assert everything.returncode == 0 and [(r["id"], r["state"]) for r in rows] == [(agent_id, "killed")]
    assert rows[0]["tainted"] == ""  # it read nothing untrusted
    assert cli(kernel_env, "kill", "a404").returncode == 1


def test_a_client_killed_mid_stream_leaves_the_kernel_and_the_others_unaffected(kernel_proc, srv, tmp_path):
    ws = workspace(tmp_path)
    srv.script(Turn(parts=(Text("one two three four five six seven eight", chunks=8),), delay=0.02))

    async def body():
        k, events = await attach(kernel_proc.home)
        watcher = await asyncio.create_subprocess_exec(
            *[agentdesk()[0], "-c", WATCHER, str(kernel_proc.home)], env=kernel_proc.env, cwd=ROOT,
            stdout=subprocess.PIPE)
        try:
            assert (await watcher.stdout.readline()).strip() == b"ready"  # attached and listening (a cold start)
            agent = k.agents.spawn("streamer", workspace=str(ws))
            await next_event(events, AgentSpawned)
            k.agents.send(agent.id, "stream")
            assert (await watcher.stdout.readline()).strip() == b"delta"  # mid-stream
            watcher.send_signal(signal.SIGKILL)
            await watcher.wait()
            done = await next_event(events, TurnFinished)
            info = await k.agents.wait(agent.id)
            deltas = []
            while not events.empty():
                deltas.append(events.get_nowait())
            return done, info, k.ledger.last_seq()
        finally:
            if watcher.returncode is None:
                watcher.kill()
            await k.aclose()

    done, info, last = run(body())
    assert done.stop_reason == "end_turn" and info.state == "idle" and last > 0
    assert hello(kernel_proc.socket) is not None


def test_a_kernel_killed_mid_turn_serves_again_after_a_restart(kernel_proc, srv, tmp_path):
    ws = workspace(tmp_path)
    srv.script(Turn(parts=(Text("a long answer " * 40, chunks=40),), delay=0.05))

    async def body():
        k, events, connection, agent = await working_agent(kernel_proc, ws, "talk", TextDelta,  # mid-turn
                                                           name="doomed")
        try:
            await killed_and_back(kernel_proc, connection)  # the client noticed, and came back on its own
            again = k.agents.spawn("after", workspace=str(ws))
            return agent, again, k.agents.list(), k.ledger.integrity(), k.agents.conversation(agent.id)
        finally:
            await k.aclose()

    agent, again, agents, integrity, conversation = run(body())
    assert again.id != agent.id and again.id in [a.id for a in agents]
    assert integrity.upto >= 1  # the ledger written before the kill checks out
    [back] = [a for a in agents if a.id == agent.id]  # rebuilt from the record, waiting for the user
    assert back.state == "interrupted"
    assert "talk" in texts(conversation)
    assert len(srv.requests) == 1  # nothing was asked of the model again by the restart


def test_a_kernel_killed_mid_tool_call_runs_nothing_twice(kernel_proc, srv, tmp_path):
    ws = workspace(tmp_path)
    script_slow_once(srv)

    async def body():
        k, events, connection, agent = await working_agent(kernel_proc, ws, "run it", ToolCallStarted,
                                                           name="doomed", scope="shell.exec")  # mid-tool-call
        try:
            await killed_and_back(kernel_proc, connection)
            calls = calls_of(k, agent.id)
            return agent, k.agents.get(agent.id), calls
        finally:
            await k.aclose()

    agent, back, calls = run(body())
    assert back.state == "interrupted"
    kinds = sorted(e.kind for e in calls)
    assert kinds == ["error", "tool"]  # the call, answered as interrupted; never run again
    [error] = [e for e in calls if e.kind == "error"]
    assert "interrupted" in error.message
    assert not (ws / "once.txt").exists()
    assert len(srv.requests) == 1


def test_sigterm_and_stop_end_the_kernel_cleanly(kernel_proc, kernel_env):
    stopped = cli(kernel_env, "kernel", "--stop")
    assert stopped.returncode == 0, stopped.stderr
    assert kernel_proc.proc.wait(timeout=30) == 0 and not kernel_proc.socket.exists()
    status = cli(kernel_env, "status")
    assert status.returncode == 1 and "no kernel is running" in status.stdout
    again = KernelProcess(kernel_proc.home, kernel_env, fresh=True).start()  # as agentdesk starts it, from nothing
    assert again.stop() == 0 and not again.socket.exists()
