"""MCP servers in the kernel service: status over the socket, and ``agentdesk mcp add|rm`` taking effect in
the running kernel at once (started, restarted when changed, stopped when removed, leases revoked), with
the servers' secrets held by the kernel and kept out of the ledger. A real kernel process, real stdio
MCP servers (tests/extensions/mcp_test_server.py) and the loopback fake provider."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys

import pytest

from kernel.cli import main
from kernel.extensions.mcp_config import McpSecrets, McpServerConfig, McpStore
from kernel.config.secrets import usable_keyring
from kernel.service.client import RemoteKernel
from tests.extensions.conftest import SERVER
from tests.fakes import Text, ToolCall, Turn
from tests.extensions.mcp_zygote import server_command

from .conftest import KernelProcess

SECRET = "s3cret-Value-4242"


@pytest.fixture
def no_keyring(monkeypatch):
    """Secrets go to the home's keys.json here and in the kernel process: a test never writes a real keyring."""
    monkeypatch.setenv("AGENTDESK_KEYRING", "off")
    usable_keyring.cache_clear()
    yield
    usable_keyring.cache_clear()


@pytest.fixture
def mcp_kernel_proc(no_keyring, kernel_env, agentdesk_home):
    command, args = server_command(SERVER)
    McpStore(agentdesk_home).add(McpServerConfig("t", command=command, args=args, timeout_s=30),
                                 McpSecrets(env={"MCP_TEST_SECRET": SECRET}))
    k = KernelProcess(agentdesk_home, {**kernel_env, "AGENTDESK_KEYRING": "off"}).start()
    yield k
    if k.proc is not None and k.proc.poll() is None:
        k.stop()


def _run(body):
    return asyncio.run(asyncio.wait_for(body(), timeout=150))


def test_status_and_add_edit_rm_apply_in_the_running_kernel(mcp_kernel_proc, agentdesk_home, srv, tmp_path, capsys):
    async def body() -> None:
        k = await RemoteKernel.for_home(agentdesk_home, client="test").start()
        try:
            first = await k.extensions.mcp_reload()  # waits for the kernel's own start of mcp.json (nothing changed since)
            assert first.problems == () and first.in_words() == "no change"
            [t] = k.extensions.mcp_status()
            assert (t.name, t.state, t.error) == ("t", "connected", None) and "mcp__t__echo" in t.tools

            # the secret reached the server, and the kernel keeps it out of the record
            ws = tmp_path / "ws"
            ws.mkdir()
            agent = k.agents.spawn("mcp", workspace=str(ws))
            on_server = k.leases.grant(agent.id, "mcp.t", 300)
            srv.script(Turn(parts=(ToolCall("mcp__t__getenv", {"name": "MCP_TEST_SECRET"}),)), Turn(parts=(Text("ok"),)))
            k.agents.send(agent.id, "go")
            assert (await k.agents.wait(agent.id)).state == "idle"
            entries = k.ledger.page(limit=200)
            results = [e for e in entries if e.kind == "result"]
            assert results and "[REDACTED:held-secret]" in repr(results[-1])
            assert SECRET not in repr(entries)

            # add: started at once
            program, args = server_command(SERVER)
            command = shlex.join((program, *args))
            assert await asyncio.to_thread(main, ["mcp", "add", "u", "--command", command]) == 0
            out, err = capsys.readouterr()
            assert "the running kernel: started u" in err
            assert "  connected" in out and "mcp__u__echo" in out and "mcp.u.dup-name" in out  # the kernel's tools
            assert await asyncio.to_thread(main, ["mcp", "list"]) == 0
            out, err = capsys.readouterr()
            assert "(as the running kernel has them)" in err and out.count("  connected") == 2
            assert "mcp.t.echo" in out and "mcp.u.echo" in out
            # --json: each server's state, protocol and tools with their scopes, from the running kernel (issue 29)
            assert await asyncio.to_thread(main, ["mcp", "list", "--json"]) == 0
            rows = {r["name"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
            assert rows["t"]["state"] == "connected" and rows["t"]["protocol"] and rows["t"]["source"] == "kernel"
            assert {"name": "mcp__t__echo", "scope": "mcp.t.echo"} in rows["t"]["tools"]
            # status: the MCP servers with their state, in words and in --json
            assert await asyncio.to_thread(main, ["status", "--json"]) == 0
            report = json.loads(capsys.readouterr().out)
            assert {m["name"]: (m["state"], m["protocol"]) for m in report["mcp"]} == {
                "t": ("connected", rows["t"]["protocol"]), "u": ("connected", rows["u"]["protocol"])}
            assert await asyncio.to_thread(main, ["status"]) == 0
            said = capsys.readouterr().out
            assert f"MCP servers: t connected ({rows['t']['protocol']}, {len(rows['t']['tools'])} tools); u connected" \
                in said
            states = {s.name: s for s in k.extensions.mcp_status()}
            assert states["u"].state == "connected" and "mcp__u__echo" in {t.name for t in k.tools()}

            # edit: restarted; a tool that changed revokes the leases on it (and on its whole server)
            assert await asyncio.to_thread(main, ["mcp", "add", "t", "--command", command,
                                                  "--env", "MCP_TEST_ECHO_NOTE= (changed)"]) == 0
            assert "the running kernel: restarted t" in capsys.readouterr().err
            assert on_server.id not in {lease.id for lease in k.leases.list(agent.id)}
            revokes = [e for e in k.ledger.page(limit=500) if e.kind == "lease.revoke"]
            assert [e.reason for e in revokes] == ["the MCP server t changed or removed its tools: echo"]
            assert "mcp__t__echo" in {t.name for t in k.tools()}  # described again, as the server lists it now

            # remove: stopped, its tools gone, leases on them revoked
            on_u = k.leases.grant(agent.id, "mcp.u.echo", 300)
            assert await asyncio.to_thread(main, ["mcp", "rm", "u"]) == 0
            assert "the running kernel: stopped u" in capsys.readouterr().err
            assert [s.name for s in k.extensions.mcp_status()] == ["t"]
            assert not any(t.name.startswith("mcp__u__") for t in k.tools())
            assert on_u.id not in {lease.id for lease in k.leases.list(agent.id)}
            revokes = [e for e in k.ledger.page(limit=500) if e.kind == "lease.revoke"]
            assert any("the MCP server u was removed" in e.reason for e in revokes)
        finally:
            await k.aclose()

    _run(body)


def test_a_server_that_fails_says_why_and_a_fix_is_taken_without_a_restart(mcp_kernel_proc, agentdesk_home, tmp_path,
                                                                          capsys):
    missing = tmp_path / "no-such-server"

    async def body() -> None:
        k = await RemoteKernel.for_home(agentdesk_home, client="test").start()
        try:
            await k.extensions.mcp_reload()
            assert await asyncio.to_thread(main, ["mcp", "add", "gone", "--command", str(missing),
                                                  "--timeout", "10"]) == 1
            err = capsys.readouterr().err
            # the kernel's own watch on mcp.json (a stat every 2 s) may have read the new entry before the CLI's
            # reload asked: then the CLI's reading finds it already started ("no change"); either way it is running
            assert any(f"the running kernel: {said}" in err for said in ("started gone", "no change")), err
            assert "agentdesk mcp add: the MCP server gone could not be started" in err and "mcp rm gone" in err
            gone = {s.name: s for s in k.extensions.mcp_status()}["gone"]
            assert gone.state == "failed" and gone.error and gone.tools == ()
            (agentdesk_home / "mcp.json").write_text(json.dumps({"servers": {"gone": {"command": sys.executable,
                                                                                       "args": [str(SERVER)]}}}))
            done = await k.extensions.mcp_reload()  # t was removed from the file, gone was fixed
            assert done.stopped == ("t",) and done.restarted == ("gone",) and done.problems == ()
            assert [(s.name, s.state) for s in k.extensions.mcp_status()] == [("gone", "connected")]
        finally:
            await k.aclose()

    _run(body)


def test_a_hand_edit_of_mcp_json_applies_in_the_running_kernel_and_a_broken_one_keeps_the_servers(
        mcp_kernel_proc, agentdesk_home):
    from kernel.core.events import McpChanged

    path = agentdesk_home / "mcp.json"

    def edit(text: str) -> None:  # as an editor saves: a new file renamed over the old one
        tmp = path.with_name("mcp.json.swp")
        tmp.write_text(text)
        tmp.replace(path)

    async def body() -> None:
        k = await RemoteKernel.for_home(agentdesk_home, client="test").start()
        heard: asyncio.Queue = asyncio.Queue()
        k.subscribe(lambda e: heard.put_nowait(e) if isinstance(e, McpChanged) and e.edited else None)
        try:
            await k.extensions.mcp_reload()  # the kernel's own start of mcp.json is done
            entry = json.loads(path.read_text())["servers"]["t"]
            edit(json.dumps({"servers": {"t": entry}})[:-5])  # cut short: not JSON
            broken = await asyncio.wait_for(heard.get(), timeout=60)  # noticed on the kernel's clock
            assert broken.reload.in_words() == "no change" and "is not valid JSON" in broken.reload.problems[0]
            [t] = k.extensions.mcp_status()
            assert t.state == "connected" and "is not valid JSON" in (t.config_problem or "")

            edit(json.dumps({"servers": {"t": entry, "u": {"command": sys.executable, "args": [str(SERVER)]}}}))
            added = await asyncio.wait_for(heard.get(), timeout=90)
            assert added.reload.started == ("u",) and added.reload.problems == ()
            states = {s.name: (s.state, s.config_problem) for s in k.extensions.mcp_status()}
            assert states == {"t": ("connected", None), "u": ("connected", None)}
            assert "mcp__u__echo" in {tool.name for tool in k.tools()}
        finally:
            await k.aclose()

    _run(body)
    assert mcp_kernel_proc.stop() == 0
    said = mcp_kernel_proc.proc.stderr.read().decode()  # kernel.log when the kernel runs on its own
    assert "agentdesk kernel: mcp.json changed: no change\n" in said and "is not valid JSON" in said
    assert "agentdesk kernel: mcp.json changed: started u\n" in said
