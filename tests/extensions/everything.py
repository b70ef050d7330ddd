"""The reference "everything" MCP server (npm ``@modelcontextprotocol/server-everything``, pinned in
tests/extensions/npm): started once per test module on loopback over streamable HTTP, where every kernel
a test builds is its own session (the server keeps its sessions apart), and stopped by pid.

Measured 2026-12-03 on the loaded 2-core machine: node takes about 0.6 s of CPU to start it; a session
costs a few milliseconds."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from kernel.extensions.mcp_names import wire_name
from tests.fakes.ci import missing

EVERYTHING = Path(__file__).with_name("npm") / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
START_S = 60.0


def _free_port() -> int:
    with socket.socket() as s:  # the server takes its port from PORT only (0 would not be reported back)
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def everything_server() -> Iterator[str]:
    """The server's streamable-HTTP endpoint URL while it runs."""
    node = shutil.which("node")
    if node is None or not EVERYTHING.exists():
        missing("scripts/bootstrap.sh test installs it (npm ci in tests/extensions/npm) and node")
    assert node is not None
    for _attempt in range(3):  # another process may take the free port first: "already in use", try another
        port = _free_port()
        proc = subprocess.Popen([node, str(EVERYTHING), "streamableHttp"], env={**os.environ, "PORT": str(port)},
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        said = ""
        for line in proc.stderr:  # the process's own words, read as they come (no polling)
            said += line
            if re.search(rf"listening on port {port}\b", line) or "already in use" in line:
                break
        if f"listening on port {port}" in said:
            break
        proc.kill()
        proc.wait(timeout=30)
    else:
        raise AssertionError(f"the everything server did not start: {said[-400:]}")
    stderr = proc.stderr
    drain = threading.Thread(target=lambda: stderr.read(), daemon=True)  # its log must not fill the pipe
    drain.start()
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
        drain.join(timeout=30)


@pytest.fixture(scope="module")
def everything() -> Iterator[str]:
    """One server per test module that asks for it (imported by the module as a fixture)."""
    with everything_server() as url:
        yield url


def ev(tool: str) -> str:
    """The wire name of the server's ``tool`` when it is configured as ``ev``."""
    return wire_name("ev", tool)
