"""Starting the home's kernel for a client that found none: detached, so it outlives the client.

The kernel runs in a new session (no controlling terminal, not in the
client's process group: closing the desktop or its terminal does not stop
it), with its output in ``kernel.log`` in the home. The client then waits for
the handshake with a deadline: a real process is starting.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from ..config.private import make_home, open_private_log
from .channel import kernel_running
from .protocol import NotRunning

START_DEADLINE_S = 30.0


def ensure_kernel(home: Path, deadline_s: float = START_DEADLINE_S) -> bool:
    """Make sure a kernel serves ``home``; True when this call started it (NotRunning if it never came up)."""
    if kernel_running(home):
        return False
    make_home(home)
    log = open_private_log(home / "kernel.log")  # handed to the child, closed here after the fork
    try:
        proc = subprocess.Popen([sys.executable, "-m", "kernel.cli", "kernel"], stdin=subprocess.DEVNULL, stdout=log,
                                stderr=log, start_new_session=True, close_fds=True,
                                env={**os.environ, "AGENTDESK_HOME": str(home)})
    finally:
        os.close(log)
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if kernel_running(home):
            return True
        code = proc.poll()
        if code is not None:
            if kernel_running(home):  # another client's kernel won the race for the lock
                return False
            raise NotRunning(f"the kernel exited with status {code}; see {home / 'kernel.log'}")
        time.sleep(0.01)  # a real process starting: poll its socket with a deadline
    raise NotRunning(f"the kernel did not start within {deadline_s:g} s; see {home / 'kernel.log'}")
