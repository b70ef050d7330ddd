"""The kernel as its own process: one per home, serving the facade over a Unix socket.

``RemoteKernel`` is the facade of that kernel for a client in another process
(the desktop, ``agentdesk ask``); ``ensure_kernel`` starts one, detached, when
none runs. Nothing here imports a provider SDK. Names are imported on first
use, so ``kernel.service.channel`` (blocking, no asyncio) stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .channel import kernel_running as kernel_running
    from .client import RemoteKernel as RemoteKernel
    from .protocol import Disconnected as Disconnected, NotRunning as NotRunning, ServiceError as ServiceError
    from .spawn import ensure_kernel as ensure_kernel

__all__ = ["Disconnected", "NotRunning", "RemoteKernel", "ServiceError", "ensure_kernel", "kernel_running"]
_WHERE = {"Disconnected": "protocol", "NotRunning": "protocol", "ServiceError": "protocol", "RemoteKernel": "client",
          "ensure_kernel": "spawn", "kernel_running": "channel"}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value
    return value
