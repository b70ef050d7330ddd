"""The kernel's desks: the facade's methods grouped by what they serve.

``Kernel`` (kernel/facade.py) is a few methods of its own and six desks,
each a small Protocol in ``kernel.api`` and served over the socket as
``<desk>.<method>``: agents (the process table and History), leases, ledger,
extensions (MCP servers and skills), outward (calls whose outcome is
unknown), and automations (kernel/automations, a room of its own). The
composition root (kernel/compose) builds them and hands them to the kernel.
"""

from .agents import Agents
from .extensions import ExtensionsDesk
from .host import RunHost
from .leases import Leases
from .ledger import LedgerWindow
from .outward import Outward

__all__ = ["Agents", "ExtensionsDesk", "LedgerWindow", "Leases", "Outward", "RunHost"]
