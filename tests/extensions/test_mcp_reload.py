"""``Kernel.mcp_reload`` in one process: reading mcp.json again starts, stops and restarts servers to match,
keeps the leases on tools that did not change, and holds the servers' secrets for the ledger's redactor.
Real stdio servers (tests/extensions/mcp_test_server.py) through the real ``mcp`` SDK."""

from __future__ import annotations

from pathlib import Path

from kernel.extensions.mcp_config import McpSecrets, McpServerConfig, McpStore
from kernel.extensions.setup import start_configured_mcp
from kernel.config.secrets import SecretStore, usable_keyring
from kernel.config.settings import SettingsStore

from .conftest import SERVER
from .conftest import McpEnv
from .mcp_zygote import server_command


def _store(home: Path) -> McpStore:
    return McpStore(home, SecretStore(SettingsStore(home), use_keyring=False))


def _server(name: str = "t", **changes) -> McpServerConfig:
    command, args = server_command(SERVER)
    return McpServerConfig(name, command=command, args=args, **{"timeout_s": 30.0, **changes})


def test_reload_starts_restarts_and_stops_to_match_mcp_json(mcp_kernel, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_KEYRING", "off")  # the kernel reads the secrets from keys.json, never a real keyring
    usable_keyring.cache_clear()
    home = tmp_path / "home"
    store = _store(home)
    store.add(_server(), McpSecrets(env={"MCP_TEST_SECRET": "tok-Abc-123456"}))
    store.add(_server("later", enabled=False))

    async def body(env: McpEnv) -> None:
        kernel = env.kernel
        assert await kernel.extensions.mcp_reload() == type(await kernel.extensions.mcp_reload())(
            problems=("this kernel was started without a home folder to read mcp.json from",))
        assert await start_configured_mcp(kernel.extensions, home) == []
        assert {s.name: s.state for s in kernel.extensions.mcp_status()} == {"t": "connected", "later": "disabled"}
        assert "tok-Abc-123456" in kernel.secrets  # held: the ledger's redactor takes it out of every entry
        agent = kernel.agents.spawn("a")
        on_echo = kernel.leases.grant(agent.id, "mcp.t.echo", 300)

        store.add(_server(timeout_s=7.0))  # same tools, another timeout: restarted, described again, lease kept
        store.add(_server("later"))  # switched on: started
        done = await kernel.extensions.mcp_reload()
        assert (done.started, done.restarted, done.stopped, done.problems) == (("later",), ("t",), (), ())
        assert kernel._services.tools.get("mcp__t__echo").timeout_s == 7.0
        assert on_echo.id in {lease.id for lease in kernel.leases.list(agent.id)}
        assert "mcp__later__echo" in {t.name for t in kernel.tools()}

        assert (await kernel.extensions.mcp_reload()).in_words() == "no change"
        store.add(_server("later", enabled=False))  # switched off: stopped, its tools gone
        store.remove("t")
        done = await kernel.extensions.mcp_reload()
        assert sorted(done.stopped) == ["later", "t"] and done.started == done.restarted == ()
        assert on_echo.id not in {lease.id for lease in kernel.leases.list(agent.id)}
        assert not any(t.name.startswith("mcp__") for t in kernel.tools())
        assert {s.name: s.state for s in kernel.extensions.mcp_status()} == {"later": "disabled"}

    mcp_kernel([], body)
