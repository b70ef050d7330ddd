"""What the kernel says about its MCP servers: plain values for the facade and the socket.

``McpServerStatus`` is one server as Settings → MCP servers and ``agentdesk mcp list`` show it;
``McpReload`` is what reading ``mcp.json`` again changed in the running kernel. Both are
re-exported by ``kernel.api`` so the service's codec carries them to a desktop in another process.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class McpServerStatus:
    """One server as the Settings page and ``agentdesk mcp list`` show it."""

    name: str
    state: str                              # "connected" · "stopped" · "failed" · "disabled"
    tools: tuple[str, ...] = ()             # wire names in the registry
    disabled: tuple[tuple[str, str], ...] = ()  # (tool, why it is left out)
    error: str | None = None
    protocol: str | None = None
    config_problem: str | None = None       # why mcp.json's entry for it was not used (it runs as it was)
    scopes: tuple[tuple[str, str], ...] = ()  # (wire name, scope) of each tool in ``tools``

    def scope_of(self, tool: str) -> str:
        """The scope of the tool with wire name ``tool`` ("" when not known)."""
        return dict(self.scopes).get(tool, "")


@dataclass(frozen=True)
class McpReload:
    """What a reload of mcp.json did: servers started, stopped, restarted (changed), and why any failed."""

    started: tuple[str, ...] = ()
    stopped: tuple[str, ...] = ()
    restarted: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()

    def in_words(self) -> str:
        parts = [f"{verb} {', '.join(names)}" for verb, names in
                 (("started", self.started), ("stopped", self.stopped), ("restarted", self.restarted)) if names]
        return "; ".join(parts) or "no change"
