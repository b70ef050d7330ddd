"""The provider host process: ``python -m kernel.providers.host_main``.

Started by ``process_host.ProcessProvider``; speaks newline-delimited JSON on
stdin/stdout (see that module for the protocol). The first line on stdin is
``{"init": {name, api_key, base_url, timeout_s}}`` — the key arrives here, never
in argv. Anything the SDKs print goes to stderr, never into the protocol.
"""

from __future__ import annotations

import sys


def main() -> int:
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not corrupt the protocol stream
    import asyncio

    from .process_host import serve

    asyncio.run(serve(sys.stdin.buffer, protocol_out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
