"""Starting the MCP servers a home configures, for the composition roots (desktop, ``agentdesk ask``).

Nothing is imported from the ``mcp`` SDK, and nothing is started, when ``mcp.json`` lists no
enabled server. What could not be used comes back as sentences to show, never as an exception.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .mcp_config import McpSecrets, McpStore

if TYPE_CHECKING:
    from ..facade import Kernel
    from .mcp_config import McpServerConfig


def configured_mcp(root: Path) -> "tuple[list[tuple[McpServerConfig, McpSecrets]], list[str]]":
    """Every server in ``root/mcp.json`` with its secrets (disabled ones too: a reload stops them), and one
    sentence per problem. The secrets are read only for enabled servers."""
    store = McpStore(root)
    loaded = store.load()
    servers = [(s, store.secrets(s.name) if s.enabled else McpSecrets()) for s in loaded.servers]
    return servers, [p.message for p in loaded.problems]


async def start_configured_mcp(kernel: "Kernel", root: Path) -> list[str]:
    """Start the servers in ``root/mcp.json``; returns one sentence per problem. The kernel remembers
    ``root``, so ``mcp_reload`` later reads the same file."""
    kernel.use_mcp_home(root)
    done = await kernel.mcp_reload()
    return list(done.problems)
