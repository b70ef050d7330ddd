"""``agentdesk kernel``: one home's kernel, headless, in the foreground, serving its socket.

It takes the home's lock (one kernel per home), builds the kernel as the
terminal's ``ask`` does (providers in this process: there is no UI here to
keep responsive, see ``benchmarks/service_bench.py`` for why no provider host
process either), and serves until SIGTERM, SIGINT or a client's ``shutdown``.
It serves first and checks after (issue 28): the socket listens and answers
``hello`` before the kernel is even imported (``start_build.py``: the build
follows, and requests wait for it); the ledger's and the automation records'
chain checks, the MCP servers and the provider's warm-up all start once the
kernel is attached; ``start_checks.py`` says what waits for the checks.
Lease requests wait for a client that can answer them (the desktop, an
``ask`` on a terminal); "attached" in the system prompt is live: true while
such a client is connected.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config.home import socket_path
from ..config.private import repair_home
from .home import HomeLock, private_folder
from .orphans import install as record_children, reap_on_sigchld
from .peers import become_subreaper
from .server import KernelServer
from .start_build import build_after_serving
from .start_checks import check_after_serving

if TYPE_CHECKING:
    from ..config.settings import SettingsStore


async def serve(home: Path, *, ready: asyncio.Event | None = None) -> int:
    """Run the kernel for ``home`` until asked to stop; exit status 0 (HomeLocked when one runs)."""
    started = time.time()
    repair_home(home)  # a home made before issue 23 was readable by every local user
    lock = HomeLock(home)
    lock.acquire(started)
    record_children()  # before anything is started: the kernel's own children are never reaped by the orphan reaper
    try:
        path = socket_path(home)
        if path.parent != home:  # a runtime folder (the home's path was too long for a socket address)
            private_folder(path.parent)
        server = KernelServer(None, path)  # listening before the kernel is built (start_build.py)
        await server.start()
        if not become_subreaper():  # orphans of what the kernel starts stay below it (kernel.service.peers);
            # before it starts anything: nothing is started before the kernel is built
            print("agentdesk kernel: could not become a child subreaper: a double-forked process the kernel "
                  "started could reach its socket", file=sys.stderr, flush=True)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, server.stopped.set)
        reap_on_sigchld(loop)  # every orphan the kernel inherits is reaped as it ends (kernel.service.orphans)
        if ready is not None:
            ready.set()
        from ..providers import preimport

        preimport.start(home)  # the SDK loads beside the build (kernel/providers/preimport.py)
        try:
            built = await build_after_serving(home, server.stopped)
        except BaseException:  # (a settings file it cannot start with: said by the CLI) the socket goes first
            await server.stop()
            raise
        if built is None:  # stopped while it was being built
            await server.stop()
            return 0
        kernel, store, providers = built.kernel, built.store, built.providers
        kernel.extensions.use_mcp_home(home)  # before any client can ask: mcp_reload reads this home's mcp.json
        server.attach(kernel, status=lambda: health(kernel, store), on_attached=kernel.set_attached,
                      on_settings=providers.forget)
        checks = asyncio.ensure_future(check_after_serving(kernel, built.ledger.path))  # then the scheduler starts
        mcp = asyncio.ensure_future(_start_mcp(kernel, home))
        warming = asyncio.ensure_future(_warm_provider(kernel.settings.provider, providers, store))
        kernel.extensions.watch_mcp(_said_mcp)  # a hand edit of mcp.json applies too (kernel/extensions/mcp_watch.py)
        channels = asyncio.ensure_future(_start_channels(kernel))  # chat channels (issue 27), when configured
        try:
            await server.stopped.wait()
        finally:
            checks.cancel()  # (a check under way in its daemon thread is dropped with the process)
            mcp.cancel()
            warming.cancel()
            channels.cancel()
            await kernel.interrupt_working()  # a clean stop: working agents come back interrupted, not killed
            await server.stop()
            await built.aclose()
    finally:
        lock.release()
    return 0


async def _warm_provider(name: str, providers: Any, store: SettingsStore) -> None:
    """The default provider's SDK is imported and its client built while nobody waits for them: on
    this machine anthropic's SDK alone took 3.3 s to import (2026-12-01), which was the first Ask's
    wait. A provider without a key is left alone (asking says why); a failure here is said on
    stderr and left for the first request to meet again."""
    from ..core.daemon_thread import in_daemon_thread
    from ..providers.lazy import missing_key_message

    if await in_daemon_thread(lambda: missing_key_message(name, store), "key-check") is not None:  # (the keyring:
        # ~0.2 s to load; a daemon thread: a kernel stopping meanwhile exits at once)
        return
    try:
        warm = getattr(providers(name), "warm", None)
        if warm is not None:
            await warm()
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001  # the first request builds it again and reports what is wrong
        print(f"agentdesk kernel: could not prepare {name} ahead of the first request: {exc}", file=sys.stderr,
              flush=True)


async def _start_channels(kernel: Any) -> None:
    """The configured chat channels start beside the kernel; what could not start is said on stderr."""
    for problem in await kernel.channels.start():
        print(f"agentdesk kernel: {problem}", file=sys.stderr, flush=True)


async def _start_mcp(kernel: Any, home: Path) -> None:
    """The home's MCP servers start beside the kernel; what could not start is said on stderr (kernel.log)."""
    from ..extensions.setup import start_configured_mcp

    for problem in await start_configured_mcp(kernel.extensions, home):
        print(f"agentdesk kernel: {problem}", file=sys.stderr, flush=True)


def _automation_health(found: Any) -> dict[str, Any]:
    """The automation records' chain as checked at start: intact (rows), or where it broke."""
    from ..automations.chain import ChainIntact
    from ..core.checking import Checking

    if isinstance(found, Checking):
        return {"automations_intact": None, "automations_rows": None, "automations_problem": None}
    if isinstance(found, ChainIntact):
        return {"automations_intact": True, "automations_rows": found.rows, "automations_problem": None}
    return {"automations_intact": False, "automations_rows": None,
            "automations_problem": f"{found.table} row {found.row}: {found.reason}"}
def _said_mcp(done: Any) -> None:
    """What reading a hand-edited mcp.json did, on stderr (kernel.log)."""
    print(f"agentdesk kernel: mcp.json changed: {done.in_words()}", file=sys.stderr, flush=True)
    for problem in done.problems:
        print(f"agentdesk kernel: {problem}", file=sys.stderr, flush=True)


def health(kernel: Any, store: SettingsStore) -> dict[str, Any]:
    """What ``agentdesk status`` reports beyond the server's own figures (never a key)."""
    from ledger import Broken, Intact

    from ..core.errors import ConfigError
    from ..config.settings import KEY_VARIABLES
    from .provider_env import kernel_side

    from ..core.checking import Checking

    integrity = kernel.ledger.integrity()
    automations = kernel.automations.integrity()
    keyed = []
    for name in KEY_VARIABLES:
        try:
            if store.api_key(name) is not None:
                keyed.append(name)
        except ConfigError:  # an unreadable keys.json: that provider has no usable key
            continue
    return {
        "agents": dict(Counter(str(a.state) for a in kernel.agents.list())),
        "ledger_checking": isinstance(integrity, Checking) or isinstance(automations, Checking),
        "ledger_intact": isinstance(integrity, Intact),
        "ledger_verified_through": integrity.upto if isinstance(integrity, Intact) else None,
        "ledger_problem": integrity.reason if isinstance(integrity, Broken) else None,
        **_automation_health(automations),
        "providers_with_key": keyed,
        # which key and base URL each provider uses, as keyed hashes: ask compares its caller's (provider_env.py)
        "provider_env": kernel_side(store.api_key, lambda name: store.base_url(name, kernel.settings)),
    }
