"""``agentdesk kernel [--stop]``: the home's kernel service in the foreground, or stop it."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

from ..config.home import home

EXIT_OK, EXIT_ERROR = 0, 1
STOP_WAIT_S = 30.0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("kernel", help="run the kernel service for this home (foreground)",
                       description="Run the kernel headless, serving the desktop and the terminal over a local "
                                   "socket, until stopped (SIGTERM, Ctrl-C, or 'agentdesk kernel --stop').")
    p.add_argument("--stop", action="store_true", help="stop the kernel that serves this home")


def run(args: argparse.Namespace) -> int:
    from ..service.home import HomeLocked

    if args.stop:
        return _stop()
    try:
        return asyncio.run(_serve())
    except HomeLocked as exc:
        from ._home_ledger import say_error

        say_error("kernel", exc)
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - narrowed below (ledger is imported only once it is needed)
        from ledger import LedgerError

        from ._home_ledger import say_error

        if not isinstance(exc, LedgerError):
            raise
        say_error("kernel", f"cannot start: {exc}")  # the ledger cannot be opened: a sentence, not a traceback
        return EXIT_ERROR


async def _serve() -> int:
    from ..service.daemon import serve

    ready = asyncio.Event()
    where = home()
    waiter = asyncio.ensure_future(ready.wait())
    serving = asyncio.ensure_future(serve(where, ready=ready))
    await asyncio.wait({waiter, serving}, return_when=asyncio.FIRST_COMPLETED)
    if ready.is_set():
        print(readiness_line(where), flush=True)  # on stdout, once: a parent process waits for it
    return await serving


READY = "agentdesk kernel: serving on "


def readiness_line(where: Path) -> str:
    """The one line the kernel prints on stdout when it serves (tests and scripts wait for it)."""
    from ..config.home import socket_path

    return f"{READY}{socket_path(where)} (pid {os.getpid()}, home {where})"


def _stop() -> int:
    from ..core.pids import pid_alive
    from ..service.client import SyncChannel
    from ..config.home import socket_path
    from ..service.home import is_locked
    from ..service.protocol import ServiceError
    from ._home_ledger import say_error

    where = home()
    channel = SyncChannel(socket_path(where), "kernel --stop", timeout=10.0)
    try:
        pid = channel.connect().get("pid")
        channel.call("shutdown")
    except ServiceError as exc:
        say_error("kernel", f"no kernel to stop: {exc}")
        return EXIT_ERROR
    finally:
        channel.close()
    deadline = time.monotonic() + STOP_WAIT_S
    while is_locked(where) and time.monotonic() < deadline:  # a real process ending: poll with a deadline
        if isinstance(pid, int) and not pid_alive(pid):
            break
        time.sleep(0.02)
    if is_locked(where):
        say_error("kernel", f"the kernel (pid {pid}) did not stop within {STOP_WAIT_S:g} s")
        return EXIT_ERROR
    print(f"agentdesk kernel: stopped (pid {pid})", file=sys.stderr)
    return EXIT_OK
