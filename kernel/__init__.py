"""Agentdesk's kernel: agents as processes, leases, budgets, tools and the agent loop.

Headless and Qt-free: the same code runs under the desktop's qasync loop and
under a plain asyncio loop (the CLI, tests, benchmarks). Vendor SDKs are
imported only inside ``kernel.providers``, and only when a provider is used.

The desktop imports the kernel only from here: the public vocabulary of
``kernel.api`` (the facade Protocol and the plain data it speaks), and the
settings store, which reads and writes files on the desktop's own machine.
"""

from .api import *  # noqa: F403
from .api import __all__ as _api_names
from .settings import SettingsStore, home
# Settings → MCP servers and Settings → Skills read and write these files on the desktop's machine too.
from .extensions.mcp_config import McpSecrets, McpServerConfig, McpStore, parse_server
from .extensions.skills import Catalog, SkillState, find_skills, set_pin

__all__ = [*_api_names, "SettingsStore", "home", "McpSecrets", "McpServerConfig", "McpStore", "parse_server",
           "Catalog", "SkillState", "find_skills", "set_pin"]
