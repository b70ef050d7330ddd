"""Starting the home's kernel for a client that found none: detached, so it outlives the client.

The kernel runs in a new session (no controlling terminal, not in the
client's process group: closing the desktop or its terminal does not stop
it), with its output in ``kernel.log`` in the home. The client then waits for
the handshake with a deadline: a real process is starting.

The kernel is still this client's child, though, until the client exits: when it
dies (killed, crashed) it stays a zombie of the desktop unless someone waits for
it. A daemon thread per started kernel does (``reaper``): it sleeps in
``waitpid`` and costs nothing while the kernel runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from ..config.private import make_home, open_private_log
from .channel import kernel_running
from .protocol import NotRunning

START_DEADLINE_S = 30.0
_reapers: dict[int, threading.Thread] = {}  # pid → the thread that waits for that kernel to end


def reaper(pid: int) -> threading.Thread | None:
    """The thread reaping the kernel ``pid`` this process started (None: not started here)."""
    return _reapers.get(pid)


def _reap(proc: subprocess.Popen[bytes]) -> None:
    thread = threading.Thread(target=proc.wait, name=f"reap kernel {proc.pid}", daemon=True)
    _reapers[proc.pid] = thread
    thread.start()


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
    _reap(proc)  # from now on its end is waited for, whenever it comes
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
