"""Starting the MCP servers a home configures, for the composition roots (desktop, ``agentdesk ask``).

Nothing is imported from the ``mcp`` SDK, and nothing is started, when ``mcp.json`` lists no
enabled server. What could not be used comes back as sentences to show, never as an exception.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .mcp_config import McpSecrets, McpStore

if TYPE_CHECKING:
    from .mcp_config import McpServerConfig
    from .mcp_status import McpReload


class McpHome(Protocol):
    """The kernel's extensions desk as far as starting a home's servers goes (kernel/desks/extensions.py)."""

    def use_mcp_home(self, root: Path) -> None: ...
    async def mcp_reload(self) -> McpReload: ...


@dataclass(frozen=True)
class Configured:
    """mcp.json as it is now: the servers with their secrets, one sentence per problem, the entries that
    could not be used (by name, with why) and, when the file as a whole could not be used, why."""

    servers: "list[tuple[McpServerConfig, McpSecrets]]" = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    broken: dict[str, str] = field(default_factory=dict)
    unreadable: str | None = None


def configured_mcp(root: Path) -> Configured:
    """Every server in ``root/mcp.json`` with its secrets (disabled ones too: a reload stops them), and what
    could not be used. The secrets are read only for enabled servers."""
    store = McpStore(root)
    loaded = store.load()
    servers = [(s, store.secrets(s.name) if s.enabled else McpSecrets()) for s in loaded.servers]
    problems = [p.message for p in loaded.problems]
    broken = {name: p.message for name, p in zip(loaded.broken, loaded.problems)}
    return Configured(servers, problems, broken, problems[0] if loaded.unreadable and problems else None)


async def start_configured_mcp(desk: McpHome, root: Path) -> list[str]:
    """Start the servers in ``root/mcp.json`` (``desk``: ``kernel.extensions``); returns one sentence per
    problem. The desk remembers ``root``, so ``mcp_reload`` later reads the same file."""
    desk.use_mcp_home(root)
    done = await desk.mcp_reload()
    return list(done.problems)
