"""The kernel as its own process: one per home, serving the facade over a Unix socket.

``RemoteKernel`` is the facade of that kernel for a client in another process
(the desktop, ``agentdesk ask``); ``ensure_kernel`` starts one, detached, when
none runs. Nothing here imports a provider SDK.
"""

from .client import RemoteKernel, kernel_running
from .protocol import Disconnected, NotRunning, ServiceError
from .spawn import ensure_kernel

__all__ = ["Disconnected", "NotRunning", "RemoteKernel", "ServiceError", "ensure_kernel", "kernel_running"]
