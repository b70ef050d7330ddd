"""A real kernel with real MCP servers: the loopback fake provider through the real Anthropic SDK,
and MCP servers started as real processes by the real ``mcp`` SDK."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

from kernel.leases.approver import Approver
from kernel.core.clock import ManualClock
from kernel.extensions.mcp_config import McpSecrets, McpServerConfig
from kernel.extensions.mcp_elicit import Elicitor
from kernel.facade import Kernel
from .everything import everything  # noqa: F401 - the reference MCP server, per module
from kernel.compose import build_kernel
from kernel.config.settings import Settings
from ledger import Ledger
from tests.fakes import FakeProviderServer, Turn
from tests.kernel.conftest import ScriptedApprover

from .mcp_zygote import server_command

SERVER = Path(__file__).with_name("mcp_test_server.py")


def stdio_server(name: str = "t", timeout_s: float = 30.0) -> McpServerConfig:
    """Our small stdio server (tests/extensions/mcp_test_server.py) as a configured server (forked from the
    worker's pre-imported zygote: ``mcp_zygote``)."""
    command, args = server_command(SERVER)
    return McpServerConfig(name, command=command, args=args, timeout_s=timeout_s)


@dataclass
class McpEnv:
    kernel: Kernel
    srv: FakeProviderServer
    approver: ScriptedApprover
    ledger: Ledger
    workspace: Path
    problems: dict[str, str] = field(default_factory=dict)

    async def ask(self, *turns: Turn) -> str:
        """Spawn an agent, script the model's ``turns``, send one message; returns the final state."""
        self.srv.script(*turns)
        agent = self.kernel.agents.spawn("mcp")
        self.kernel.agents.send(agent.id, "go")
        return (await self.kernel.agents.wait(agent.id)).state


@pytest.fixture
def mcp_kernel(tmp_path: Path, agentdesk_home: Path) -> Callable[..., Any]:
    """``mcp_kernel(servers, body)`` runs ``await body(env)`` with a kernel whose MCP servers started."""
    ledgers: list[Ledger] = []

    def go(servers: list[McpServerConfig], body: Callable[[McpEnv], Awaitable[Any]],
           approver: Approver | None = None, mode: str = "auto", attached: bool = False,
           elicitor: Elicitor | None = None) -> Any:
        ws = tmp_path / "ws"
        ws.mkdir(exist_ok=True)
        ledger = Ledger(tmp_path / "ledger.db", clock=ManualClock().now)
        ledgers.append(ledger)
        with FakeProviderServer(expected_key="test-key") as srv:
            async def main() -> Any:
                from kernel.providers.anthropic import AnthropicProvider

                provider = AnthropicProvider(api_key="test-key", base_url=srv.anthropic_base_url, timeout_s=20.0)
                scripted = ScriptedApprover()
                kernel = build_kernel(ledger=ledger, settings=Settings(workspace=str(ws)), providers=lambda _n: provider,
                                      approver=approver or scripted, attached=attached, elicitor=elicitor)
                try:
                    problems = await kernel.extensions.start_mcp([(s, McpSecrets()) for s in servers],
                                                      log_dir=tmp_path / "logs", mode=mode)
                    env = McpEnv(kernel, srv, scripted, ledger, ws.resolve(), problems)
                    return await body(env)
                finally:
                    await kernel.aclose()
                    await provider.aclose()

            out = asyncio.run(asyncio.wait_for(main(), timeout=120))
            srv.assert_done()
            return out

    yield go
    for ledger in ledgers:
        ledger.close()


def on_add(turns: Any) -> asyncio.Event:
    """An event set each time ``turns`` (an ``McpTurnContext``) keeps a piece for an agent's next turn: a
    server's update of an attached resource, heard on the kernel's loop, is awaited, not polled."""
    arrived = asyncio.Event()
    add = turns.add

    def adding(agent_id: str, piece: Any) -> None:
        add(agent_id, piece)
        arrived.set()

    turns.add = adding
    return arrived


class Fifo:
    """A FIFO a server process writes to (``open(path, "w")``): held open at both ends by the test, so the
    server's open never blocks and the reading end is readable only when something was written."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path = path
        self.read_fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self._keep = os.open(path, os.O_WRONLY)  # no EOF between writers: readable means written

    async def said(self, timeout_s: float = 30.0) -> bytes:
        """What the next writer wrote, waiting on the loop for the FIFO to become readable."""
        loop = asyncio.get_running_loop()
        got: asyncio.Future[bytes] = loop.create_future()
        loop.add_reader(self.read_fd, lambda: got.done() or got.set_result(os.read(self.read_fd, 65536)))
        try:
            return await asyncio.wait_for(got, timeout_s)
        finally:
            loop.remove_reader(self.read_fd)

    def close(self) -> None:
        os.close(self.read_fd)
        os.close(self._keep)
