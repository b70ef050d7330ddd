"""The two backends the facade contract runs on: the in-process ``Kernel``, and ``RemoteKernel`` over a real
Unix socket to a ``KernelServer`` whose kernel runs on its own loop in a thread (as the kernel service runs it,
in one process so the scripted provider can be scripted from the test).

Both kernels are made by the composition root (``kernel.compose.build_kernel``) the same way, with the
scripted fake provider and the kernel's own pending approver (lease requests wait for an answer).
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, Awaitable, Callable

from kernel.api import KernelFacade, Settings
from kernel.compose import build_kernel
from kernel.facade import Kernel
from kernel.providers.scripted import ScriptedProvider
from kernel.service.client import RemoteKernel
from kernel.service.server import KernelServer
from ledger import Ledger

Body = Callable[[KernelFacade], Awaitable[None]]
TIMEOUT_S = 60.0


def _kernel(tmp: Path, provider: ScriptedProvider) -> tuple[Kernel, Ledger, Path]:
    ws = tmp / "ws"
    ws.mkdir(exist_ok=True)
    ledger = Ledger(tmp / "ledger.db")
    kernel = build_kernel(ledger=ledger, settings=Settings(user_name="Ada", workspace=str(ws)),
                          providers=lambda _name: provider)
    return kernel, ledger, ws.resolve()


class InProcess:
    """``Kernel`` itself, on the test's loop."""

    name = "in-process"

    def __init__(self, tmp: Path) -> None:
        self.provider = ScriptedProvider()
        self.kernel, self.ledger, self.workspace = _kernel(tmp, self.provider)
        self._mcp: list[Any] = []

    def start_mcp(self, servers: list[Any]) -> None:
        """MCP servers the kernel starts on the loop ``run`` makes, before the body."""
        self._mcp = list(servers)

    def run(self, body: Body) -> None:
        async def go() -> None:
            try:
                if self._mcp:
                    from kernel.extensions.mcp_config import McpSecrets

                    await self.kernel.extensions.start_mcp([(s, McpSecrets()) for s in self._mcp])
                await asyncio.wait_for(body(self.kernel), TIMEOUT_S)
            finally:
                await self.kernel.aclose()

        asyncio.run(go())

    def close(self) -> None:
        self.ledger.close()


class OverSocket:
    """``RemoteKernel`` (what the shipped desktop uses) over a real socket to a kernel served on its own
    loop thread: every call is encoded, checked against the served method table and decoded."""

    name = "over-socket"

    def __init__(self, tmp: Path) -> None:
        self.provider = ScriptedProvider()
        self.path = tmp / "k.sock"
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True, name="kernel service")
        self.thread.start()
        self.kernel, self.ledger, self.workspace = _kernel(tmp, self.provider)
        self.server = KernelServer(self.kernel, self.path)
        self._in_kernel(self.server.start())

    def _in_kernel(self, coro: Awaitable[Any]) -> Any:
        async def wrapped() -> Any:
            return await coro

        return asyncio.run_coroutine_threadsafe(wrapped(), self.loop).result(timeout=TIMEOUT_S)

    def start_mcp(self, servers: list[Any]) -> None:
        """MCP servers the served kernel starts now, on its own loop."""
        from kernel.extensions.mcp_config import McpSecrets

        self._in_kernel(self.kernel.extensions.start_mcp([(s, McpSecrets()) for s in servers]))

    def run(self, body: Body) -> None:
        async def go() -> None:
            client = await RemoteKernel(self.path, client="contract", answers_leases=True).start()
            try:
                await asyncio.wait_for(body(client), TIMEOUT_S)
            finally:
                await client.aclose()

        asyncio.run(go())

    def close(self) -> None:
        async def down() -> None:
            await self.server.stop()
            await self.kernel.aclose()

        self._in_kernel(down())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=TIMEOUT_S)
        self.loop.close()
        self.ledger.close()
