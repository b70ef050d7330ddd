"""Start one MCP server once, list its tools as the kernel would offer them, and stop it.

``agentdesk mcp add`` waits for the server it added and ``mcp list`` shows each server's state and
tools; with no kernel running, the command line asks the server itself, here. The listing goes
through the same checks as in the kernel (``mcp_tools.describe``: names, scopes, schemas; a name
listed twice or meeting another on the wire is left out), so the tools and scopes printed are the
ones agents would get, and a tool left out is printed with its reason. Nothing listed here is run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ..core.errors import RegistryError, ToolFailure
from ..tools.descriptor import ToolContext, ToolOutput
from ..tools.registry import ToolRegistry
from .mcp_client import McpConnection, McpError
from .mcp_config import McpSecrets, McpServerConfig
from .mcp_hooks import McpHooks
from .mcp_status import McpServerStatus
from .mcp_tools import ListedTool, describe


async def _listing_only(_ctx: ToolContext, _input: Mapping[str, Any]) -> ToolOutput:
    raise ToolFailure("this tool was listed to be shown, not to be run")


def offered(server: str, listed: tuple[ListedTool, ...], timeout_s: float) -> McpServerStatus:
    """The tools of ``listed`` that the kernel would offer, with their scopes, and the others with why."""
    registry = ToolRegistry()
    seen: set[str] = set()
    disabled: dict[str, str] = {}
    for tool in sorted(listed, key=lambda t: str(t.name)):
        if tool.name in seen:
            disabled[tool.name] = "the server lists this name twice"
            continue
        seen.add(tool.name)
        try:
            registry.add(describe(server, tool, _listing_only, timeout_s))
        except RegistryError as exc:
            disabled[str(tool.name)] = exc.detail if exc.reason != "duplicate" else \
                f"its name {exc.tool} collides with another tool: {exc.detail}"
    return McpServerStatus(server, "connected", registry.names(), tuple(sorted(disabled.items())),
                           scopes=tuple((d.name, d.scope) for d in registry.descriptors()))


async def probe(config: McpServerConfig, secrets: McpSecrets = McpSecrets(), *,
                log_path: Path | None = None, hooks: McpHooks = McpHooks()) -> McpServerStatus:
    """Server ``config`` started, listed and stopped: ``connected`` with its tools, or ``failed`` with why. With
    ``hooks.vault`` a remote server signs in with what the key store holds for it (never a browser: a server
    that needs a person says so in words)."""
    if not config.enabled:
        return McpServerStatus(config.name, "disabled")
    connection = McpConnection(config, secrets, log_path=log_path, hooks=hooks)
    try:
        listed = await connection.list_tools()
        protocol = connection.protocol
    except McpError as exc:
        return McpServerStatus(config.name, "failed", error=exc.message)
    except TimeoutError:
        return McpServerStatus(config.name, "failed", error=f"the MCP server {config.name} did not list its tools "
                                                            "in time")
    finally:
        await connection.close()
    status = offered(config.name, listed, config.timeout_s)
    return McpServerStatus(status.name, status.state, status.tools, status.disabled, protocol=protocol,
                           scopes=status.scopes)
