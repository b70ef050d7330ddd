"""The provider host process: ``python -m kernel.providers.host_main``.

Started by ``process_host.ProcessProvider``; speaks newline-delimited JSON on
stdin/stdout (``host_protocol``) and does its work in ``host_child``. The first
line on stdin is ``{"init": {name, api_key, base_url, timeout_s}}`` — the key
arrives here, never in argv. Anything the SDKs print goes to stderr, never into the protocol.
"""

from __future__ import annotations

import os
import sys

NICENESS = 10


def main() -> int:
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not corrupt the protocol stream
    _yield_cpu()
    import asyncio

    from .host_child import serve

    asyncio.run(serve(sys.stdin.buffer, protocol_out))
    return 0


def _yield_cpu() -> None:
    """Run below the desktop's priority: building requests is background work, and on a machine
    with few cores the hosts' CPU must not preempt the UI process's loop."""
    try:
        os.nice(NICENESS)
    except (AttributeError, OSError):
        pass


if __name__ == "__main__":
    sys.exit(main())
