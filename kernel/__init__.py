"""Agentdesk's kernel: agents as processes, leases, budgets, tools and the agent loop.

Headless and Qt-free: the same code runs under the desktop's qasync loop and
under a plain asyncio loop (the CLI, tests, benchmarks). Vendor SDKs are
imported only inside ``kernel.providers``, and only when a provider is used.

The desktop imports the kernel only from here: the public vocabulary of
``kernel.api`` (the facade Protocol and the plain data it speaks), and the
settings store, which reads and writes files on the desktop's own machine.
Every name is imported on first use (PEP 562), so ``import kernel.cli`` or
``import kernel.service.client`` does not pay for the whole kernel.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import *  # noqa: F403
    from .config.settings import SettingsStore as SettingsStore, home as home
    # Settings → MCP servers and Settings → Skills read and write these files on the desktop's machine too.
    from .extensions.mcp_config import (
        McpSecrets as McpSecrets, McpServerConfig as McpServerConfig, McpStore as McpStore,
        parse_server as parse_server,
    )
    from .extensions.mcp_sign_in import mcp_sign_in as mcp_sign_in
    from .extensions.skills import (
        Catalog as Catalog, SkillState as SkillState, find_skills as find_skills, set_pin as set_pin,
    )

_FROM: dict[str, tuple[str, ...]] = {
    "kernel.config.settings": ("SettingsStore", "home"),
    "kernel.extensions.mcp_config": ("McpSecrets", "McpServerConfig", "McpStore", "parse_server"),
    "kernel.extensions.skills": ("Catalog", "SkillState", "find_skills", "set_pin"),
    "kernel.extensions.mcp_sign_in": ("mcp_sign_in",),  # Settings → MCP servers → Sign in (issue 29)
}
_LAZY = {name: module for module, names in _FROM.items() for name in names}

_OWN = ["SettingsStore", "home", "McpSecrets", "McpServerConfig", "McpStore", "parse_server", "Catalog", "SkillState",
        "find_skills", "set_pin", "mcp_sign_in"]


def __getattr__(name: str) -> Any:
    """A public name, imported the first time it is asked for (then an ordinary attribute)."""
    if name.startswith("__") and name != "__all__":  # probes such as __wrapped__: no reason to load anything
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    api = importlib.import_module("kernel.api")  # not imported before: ``import kernel.core.errors`` stays light
    module = _LAZY.get(name)
    if name == "__all__":
        value: Any = [*api.__all__, *_OWN]
    elif module is not None:
        value = getattr(importlib.import_module(module), name)
    elif name in api.__all__:
        value = getattr(api, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value
