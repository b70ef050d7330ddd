"""The tests' stdio MCP servers, forked from one pre-imported parent per pytest worker.

Every stdio MCP server the tests start is a Python script built on the ``mcp`` SDK, and importing the SDK
(its protocol types for two protocol versions) costs about 2 s of CPU on the loaded 2-core CI machine
(measured 2026-12-03: ``import mcp.server.mcpserver`` 2.0-2.2 s user), for a server that then answers a
handful of requests. The suite starts dozens. So, like the kernel processes (``tests/service/zygote.py``),
each worker starts one *zygote* that imports the SDK once and forks a child per server.

The kernel under test still starts a real process for the server, exactly as configured: the command is
``python -S mcp_stub.py SOCKET SCRIPT ARGS…``, a stdlib-only stub that starts in milliseconds, hands its
stdin, stdout and stderr, its arguments, environment and working folder to the zygote over a Unix socket
(``SCM_RIGHTS``), and then stands for the server: it forwards SIGTERM, SIGINT and SIGHUP to it and exits
with its exit status. The server process reads and writes the kernel's own pipes, so closing its stdin,
its crash mid-call and its output are what they would be. If the stub is killed outright, its socket
closes and the zygote kills the server: nothing is left running.

Tests about a server's own process (its process group, double forks, zombies) start the script directly.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.service.zygote import run_as_child

STUB = Path(__file__).with_name("mcp_stub.py")
SERVERS = ("mcp.server.mcpserver", "mcp.server.stdio", "mcp.types", "anyio")  # what the test servers import


# ---- the zygote (its own process: python -m tests.extensions.mcp_zygote SOCKET CONTROL_FD MODULE…) -------

def _serve(path: str, control: socket.socket, preload: list[str]) -> None:
    import importlib

    for name in preload:
        importlib.import_module(name)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    control.sendall(b"ready\n")
    servers: dict[socket.socket, int] = {}  # each stub's connection and its server's pid
    try:
        while True:
            readable, _, _ = select.select([control, listener, wake_r, *servers], [], [])
            if control in readable:
                return  # the worker ended (or said so)
            if wake_r in readable:
                os.read(wake_r, 4096)
                _reap(servers)
            if listener in readable:
                conn, _ = listener.accept()
                pid = _start(conn, listener, control, (wake_r, wake_w))
                if pid is not None:
                    servers[conn] = pid
            for conn in [c for c in readable if c in servers]:
                if not conn.recv(1):  # the stub is gone: so is its server
                    _kill(servers.pop(conn))
                    conn.close()
    finally:
        for pid in servers.values():
            _kill(pid)


def _start(conn: socket.socket, listener: socket.socket, control: socket.socket, wake: tuple[int, int]) -> int | None:
    message, fds, _flags, _addr = socket.recv_fds(conn, 1 << 20, 3)
    while message and not message.endswith(b"\n"):
        more = conn.recv(1 << 20)
        if not more:
            break
        message += more
    if len(fds) != 3 or not message.endswith(b"\n"):
        for fd in fds:
            os.close(fd)
        conn.close()
        return None
    spec: dict[str, Any] = json.loads(message)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        conn.sendall(f"{pid}\n".encode())
        return pid

    def server() -> None:  # the server, with the stub's stdio, arguments, environment and folder
        import runpy

        runpy.run_path(sys.argv[0], run_name="__main__")

    run_as_child(server, fds, spec["cwd"], spec["env"], list(spec["argv"]), (conn, listener, control, *wake))


def _reap(servers: dict[socket.socket, int]) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        for conn, server in list(servers.items()):
            if server == pid:
                del servers[conn]
                try:
                    conn.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
                except OSError:
                    pass
                conn.close()


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# ---- the worker's side -------------------------------------------------------------------------------------

class _Zygote:
    def __init__(self, preload: tuple[str, ...]) -> None:
        self.folder = tempfile.mkdtemp(prefix="mcpz-")
        self.path = os.path.join(self.folder, "s")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        root = Path(__file__).resolve().parents[2]
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.extensions.mcp_zygote", self.path,
                                      str(theirs.fileno()), *preload], pass_fds=[theirs.fileno()], cwd=root,
                                     stdin=subprocess.DEVNULL)
        theirs.close()
        self.control = ours
        ready, _, _ = select.select([ours], [], [], 120)
        if not ready or ours.recv(16) != b"ready\n":
            self.proc.kill()
            raise RuntimeError("the MCP server zygote did not start")

    def stop(self) -> None:
        self.control.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


_zygotes: dict[tuple[str, ...], _Zygote] = {}
_zygotes_pid = 0


def server_command(script: Path, *args: str, preload: tuple[str, ...] = SERVERS) -> tuple[str, tuple[str, ...]]:
    """The command and arguments that start ``script`` (a program built on ``preload``, by default an ``mcp``
    SDK server) as a process forked from this worker's zygote for ``preload``."""
    global _zygotes_pid
    if _zygotes_pid != os.getpid():  # a forked worker cannot share its parent's
        _zygotes.clear()
        _zygotes_pid = os.getpid()
    zygote = _zygotes.get(preload)
    if zygote is None or zygote.proc.poll() is not None:
        zygote = _zygotes[preload] = _Zygote(preload)
        atexit.register(zygote.stop)
    return sys.executable, ("-S", str(STUB), zygote.path, str(script), *args)


if __name__ == "__main__":
    _serve(sys.argv[1], socket.socket(fileno=int(sys.argv[2])), sys.argv[3:])
