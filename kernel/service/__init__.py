"""The kernel as its own process: one per home, serving the facade over a Unix socket.

``RemoteKernel`` is the facade of that kernel for a client in another process
(the desktop, ``agentdesk ask``); ``ensure_kernel`` starts one, detached, when
none runs. Nothing here imports a provider SDK. Names are imported on first
use, so ``kernel.service.channel`` (blocking, no asyncio) stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger.lazy import lazy_names

if TYPE_CHECKING:
    from .channel import kernel_running as kernel_running
    from .client import RemoteKernel as RemoteKernel
    from .protocol import Disconnected as Disconnected, NotRunning as NotRunning, ServiceError as ServiceError
    from .spawn import ensure_kernel as ensure_kernel

__all__ = ["Disconnected", "NotRunning", "RemoteKernel", "ServiceError", "ensure_kernel", "kernel_running"]
__getattr__, __dir__ = lazy_names(globals(), {
    "kernel.service.protocol": ("Disconnected", "NotRunning", "ServiceError"),
    "kernel.service.client": ("RemoteKernel",),
    "kernel.service.spawn": ("ensure_kernel",),
    "kernel.service.channel": ("kernel_running",),
})
