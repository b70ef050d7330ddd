"""The composition root: the one place a kernel is built.

``build_kernel`` makes the parts (the ledger's redactor, the lease book and
the pending requests, the tools: shell, web, mail and ``automation_create``;
the automation gate and desk; the MCP and skills desk; the outward desk) and
hands them to ``kernel.facade.Kernel``, which builds nothing. ``open_home``
builds one for a home folder (settings, ledger, providers, secrets, mail
accounts) the way the kernel service and the desktop's in-process mode run
it, and hands the providers over with it. The CLI, the service, the desktop,
tests and benchmarks all build kernels here. A room of its own (not the
facade) because it sits above everything it wires: the desktop may import
it and ``kernel.api`` and nothing else of the kernel.
"""

from .build import build_kernel
from .home import HomeKernel, open_home

__all__ = ["HomeKernel", "build_kernel", "open_home"]
