"""Starting the MCP servers a home configures, for the composition roots (desktop, ``agentdesk ask``).

Nothing is imported from the ``mcp`` SDK, and nothing is started, when ``mcp.json`` lists no
enabled server. What could not be used comes back as sentences to show, never as an exception.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .mcp_config import McpStore

if TYPE_CHECKING:
    from ..facade import Kernel


async def start_configured_mcp(kernel: "Kernel", root: Path) -> list[str]:
    """Start the servers in ``root/mcp.json``; returns one sentence per problem."""
    store = McpStore(root)
    loaded = store.load()
    problems = [p.message for p in loaded.problems]
    servers = [(s, store.secrets(s.name)) for s in loaded.servers if s.enabled]
    if servers:
        failed = await kernel.start_mcp(servers, log_dir=root / "logs")
        problems += list(failed.values())
    return problems
