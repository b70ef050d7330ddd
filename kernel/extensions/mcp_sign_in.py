"""Signing in to a remote MCP server, wherever a person is: ``agentdesk mcp login`` and Settings → MCP servers.

One flow for both: the kernel's own connection (``McpConnection``) with the key store for the tokens and
a ``browser`` that shows the person the authorization address (the terminal prints it and offers it to
the system browser; the desktop opens it), a loopback redirect on 127.0.0.1 taking the code back. The
SDK's OAuth provider does the rest (discovery, registration, PKCE, refresh). The tokens land in the key
store (``mcp:oauth:NAME``), where the running kernel's connection finds them after a reload.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from .mcp_oauth import Browser

if TYPE_CHECKING:
    from .mcp_config import McpServerConfig, McpStore


def remote_server(store: "McpStore", name: str) -> "McpServerConfig | None":
    """The remote (``--url``) server called ``name`` in mcp.json, or None."""
    config = next((s for s in store.load().servers if s.name == name), None)
    return config if config is not None and config.url is not None else None


async def mcp_sign_in(store: "McpStore", name: str, browser: Browser) -> int:
    """Sign in to server ``name`` (McpError when it cannot: its words say why); how many tools it then lists."""
    from .mcp_client import McpConnection, McpError
    from .mcp_hooks import McpHooks

    config = remote_server(store, name)
    if config is None:
        raise McpError(name, f"there is no remote (--url) server called {name!r}")
    connection = McpConnection(config, store.secrets(config.name), hooks=McpHooks(vault=store.book.store,
                                                                                  browser=browser))
    try:
        return len(await connection.list_tools())
    except asyncio.CancelledError:  # given up (the page closed): the browser's answer is no longer awaited
        await connection.close(grace_s=0)
        raise
    finally:
        await connection.close()
