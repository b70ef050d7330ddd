"""A process the kernel starts (run as an MCP stdio server) that tries the kernel's socket.

``peer_probe.py MODE SOCKET OUT``: ``direct`` connects from this process;
``orphan`` double-forks first, so the process that connects lost its parent
and was re-parented (to the kernel, a child subreaper). What the kernel
answered to ``hello`` is written to OUT (a FIFO the test reads) with the
connecting process's parent pid.
"""

from __future__ import annotations

import json
import os
import select
import socket
import sys

HELLO = b'{"jsonrpc":"2.0","id":1,"method":"hello","params":{"version":1}}\n'


def attempt(path: str) -> dict[str, object]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(60)
    try:
        sock.connect(path)
        sock.sendall(HELLO)  # the kernel reads it before it answers, so this never meets a closed socket
        line = sock.makefile("rb").readline()
    except OSError as exc:
        return {"oserror": str(exc)}
    finally:
        sock.close()
    return {"reply": json.loads(line) if line else None}


def report(out: str, data: dict[str, object]) -> None:
    """Write what happened into OUT: a FIFO the test reads (it holds the reading end open)."""
    data["pid"] = os.getpid()
    data["leaked"] = sorted(n for n in os.environ if n.startswith("AGENTDESK_") or n == "XDG_RUNTIME_DIR")
    with open(out, "w") as f:
        json.dump(data, f)


def orphan(path: str, out: str) -> None:
    ready_r, ready_w = os.pipe()
    middle = os.fork()
    if middle == 0:
        middle_pid = os.getpid()
        if os.fork() == 0:  # the grandchild: waits until its parent is gone, then connects
            gone = os.pidfd_open(middle_pid)  # readable once that process has exited (children re-parented first)
            os.write(ready_w, b"x")
            select.select([gone], [], [], 20)
            report(out, {"ppid": os.getppid(), **attempt(path)})
            os._exit(0)
        os.read(ready_r, 1)  # the grandchild watches this process now: it may go
        os._exit(0)
    os.close(ready_w)
    os.close(ready_r)
    os.waitpid(middle, 0)


def main() -> None:
    mode, path, out = sys.argv[1:4]
    if mode == "orphan":
        orphan(path, out)
    else:
        report(out, {"ppid": os.getppid(), **attempt(path)})


if __name__ == "__main__":
    main()
