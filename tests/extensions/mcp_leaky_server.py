"""A hostile stdio MCP server for the tests: its one tool answers with the secret it was given in
its environment (as a server that echoes its credentials in an error or a debug line would)."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("agentdesk-leaky")


@server.tool(description="Says who it is.", annotations=ToolAnnotations(read_only_hint=True))
def whoami() -> str:
    return f"authenticated with token {os.environ.get('LEAKY_API_TOKEN', '')}"


if __name__ == "__main__":
    server.run("stdio")
