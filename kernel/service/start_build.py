"""The kernel is built after its socket listens (issue 28): accepting first, then the build.

``agentdesk kernel`` used to import and build the whole kernel, then restore
every agent on the record, and only then listen: 2.2 s on a home of 100
agents × 200 messages at load 1-2 on this 2-core machine (2026-12-03), of
which ~1.1 s of imports (the facade's method table alone pulls in every
room), ~0.25 s of keyring detection and ~0.3 s of rebuilding agents. Now
the daemon listens first (``KernelServer(None, …)`` answers ``hello`` at
once and holds every other request until the kernel is attached), then:

1. the kernel's modules are imported in a daemon thread (``KERNEL_MODULES``),
   so the loop keeps answering ``hello`` meanwhile (the importing thread gives
   up the GIL every switch interval, 5 ms); a daemon thread, so a kernel
   stopped during the imports exits at once instead of waiting for them;
2. the kernel is built on the loop's thread (its ``KernelLoop`` belongs to
   the thread that builds it), the open outward calls settled, and the agents
   on the record restored, with a turn of the loop between steps so a
   ``hello`` arriving meanwhile is answered in between.

A stop (SIGTERM, ``shutdown``) during any step ends the build there.

Measured (2026-12-03, this shared 2-core machine at load 16, the 100 × 200 home, the kernel before this
change and after it started alternately, medians of 5): start → ``hello`` answered 11.1 s → 0.6 s of wall
time, and the kernel's CPU time by then 1,970 ms → 190 ms (the wall figures follow the load; on a quiet
machine the old start took 2.2 s); at load 7.7, 2,840 ms → 294 ms (CPU 1,990 → 160 ms). ``start_bench.py``
at load 8 (``import anthropic`` 5.8 s in the same run): accepting after 254 ms on the verified home, 297 ms
on the never-verified one. What is left before listening is the interpreter, asyncio, argparse and json:
the floor of any asyncio server in Python here.
"""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.daemon_thread import in_daemon_thread

if TYPE_CHECKING:
    from ..compose.home import HomeKernel

# What building and serving the kernel imports, loaded off the loop (the rest of its rooms come with them).
KERNEL_MODULES = ("kernel.compose", "kernel.service.methods", "kernel.extensions.setup",
                  "kernel.extensions.mcp_watch", "kernel.core.checking", "kernel.automations.chain",
                  "kernel.service.provider_env", "kernel.providers.lazy", "ledger.store")


def import_modules(names: tuple[str, ...] = KERNEL_MODULES) -> None:
    """Import ``names`` (in the thread this is called in); a module that fails is left for the build to meet."""
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the build imports it again and reports what is wrong
            continue


async def imported_off_loop(names: tuple[str, ...] = KERNEL_MODULES) -> None:
    """Import ``names`` in a daemon thread and return when it is done (never holds up the process's exit)."""
    await in_daemon_thread(lambda: import_modules(names), "kernel-imports")


async def _unless_stopped(step: asyncio.Future[None], stopped: asyncio.Event) -> bool:
    """Wait for ``step``; False (and ``step`` left behind) when ``stopped`` is set first."""
    stopping: asyncio.Future[Any] = asyncio.ensure_future(stopped.wait())
    try:
        await asyncio.wait({step, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if not step.done():
        step.cancel()
        return False
    return not stopped.is_set()


async def build_after_serving(home: Path, stopped: asyncio.Event,
                              modules: tuple[str, ...] = KERNEL_MODULES) -> HomeKernel | None:
    """The kernel of ``home``, built while its socket already listens (``modules`` imported off the loop
    first); None when ``stopped`` came first."""
    if not await _unless_stopped(asyncio.ensure_future(imported_off_loop(modules)), stopped):
        return None
    from ..compose import open_home

    built = open_home(home, out_of_process=False, watch_workspaces=True,  # no UI here to keep responsive
                      restore=False,  # (below, once the open outward calls are settled)
                      check_later=True)  # served first, checked after (start_checks.py says what waits)
    await asyncio.sleep(0)  # a hello that arrived meanwhile is answered
    await built.kernel.outward.resume()  # outward calls a crashed kernel left open: verified, never redone
    await asyncio.sleep(0)
    if stopped.is_set():
        await built.aclose()
        return None
    built.kernel.agents.restore()  # the agents on the record come back (working ones: interrupted); a call cut
    # short mid-send is answered with how it ended, as just verified (kernel.tools.outward.interrupted_words)
    return built
