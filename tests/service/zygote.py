"""Kernel processes for tests, forked from one pre-imported parent per pytest worker.

The suite starts about a hundred ``agentdesk kernel`` processes (every attached desktop test and most
service tests has its own home, so its own kernel). A fresh one spends most of its start importing: the
kernel, then the Anthropic SDK the loopback fake server is reached through — 0.6 to 3.7 s of CPU each,
measured 2026-12-03 on this 2-core machine, which is minutes of the ten-minute CI run. So each worker
starts one *zygote* once: a plain Python process that imports exactly that and nothing more (no thread,
no event loop, no home), then forks a child per kernel. The child is an ordinary ``agentdesk kernel``
from ``kernel.cli.main`` on: its own pid, environment, working folder and stdio (the test's pipes, passed
over the control socket), so what the tests see of it is what they see of a fresh process. Tests about
the process's own start (its imports, its start-up time, its lock) still start it fresh (``fresh=True``).

``ForkedProcess`` has the part of ``subprocess.Popen`` the tests use (pid, stdout, stderr, poll, wait,
send_signal). A child is the zygote's, not the worker's, so the zygote reaps it and reports its exit
status (Popen's convention: negative for a signal). The zygote ends when its worker does (its control
socket closes) and takes its remaining children with it.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any, Callable, Iterable, NoReturn

ROOT = Path(__file__).resolve().parents[2]
PRELOAD = ("kernel.cli", "kernel.cli.kernel_cmd", "kernel.service.daemon", "kernel.compose",
           "kernel.providers.anthropic", "anthropic")


# ---- the zygote (its own process: python -m tests.service.zygote FD) --------------------------------------

def _serve(control: socket.socket) -> None:
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    children: set[int] = set()
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    _send(control, {"ready": os.getpid()})
    try:
        while True:
            readable, _, _ = select.select([control, wake_r], [], [])
            if wake_r in readable:
                os.read(wake_r, 4096)
                _reap(control, children)
            if control in readable:
                message, fds, _flags, _addr = socket.recv_fds(control, 1 << 16, 3)
                if not message:
                    return
                while not message.endswith(b"\n"):  # a stream: the rest of a long request comes after
                    more = control.recv(1 << 16)
                    if not more:
                        return
                    message += more
                pid = _fork(json.loads(message), fds, control, (wake_r, wake_w))
                children.add(pid)
                _send(control, {"pid": pid})
    finally:
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _reap(control: socket.socket, children: set[int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children.discard(pid)
        _send(control, {"exit": pid, "code": os.waitstatus_to_exitcode(status)})


def _fork(spec: dict[str, Any], fds: list[int], control: socket.socket, wake: tuple[int, int]) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        return pid

    def kernel() -> int:
        from kernel.cli import main

        return main(spec["args"])

    run_as_child(kernel, fds, spec["cwd"], spec["env"], ["agentdesk", *spec["args"]], (control, *wake))


def run_as_child(run: Callable[[], int | None], fds: list[int], cwd: str, env: dict[str, str], argv: list[str],
                 closing: Iterable[socket.socket | int]) -> NoReturn:
    """A forked child's life: nothing of the zygote's plumbing survives (``closing``), the caller's stdio
    (``fds``), folder, environment and arguments become its own, then ``run``; it exits with ``run``'s status
    (or ``SystemExit``'s, as a Python process would; whatever else ends it is printed, status 1)."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for thing in closing:
            if isinstance(thing, socket.socket):
                thing.close()
            else:
                os.close(thing)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        sys.argv = argv
        code = run() or 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - whatever ends the child is printed, then it exits
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _send(control: socket.socket, message: dict[str, Any]) -> None:
    control.sendall(json.dumps(message).encode() + b"\n")


# ---- the worker's side -------------------------------------------------------------------------------------

class Zygote:
    """The worker's zygote: spawns kernels, and keeps each child's exit status when the zygote reports it."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._proc = subprocess.Popen([sys.executable, "-m", "tests.service.zygote", str(theirs.fileno())],
                                      pass_fds=[theirs.fileno()], cwd=ROOT, stdin=subprocess.DEVNULL)
        theirs.close()
        self._control = ours
        self._lines = ours.makefile("rb")
        self._spawn_lock = threading.Lock()
        self._changed = threading.Condition()
        self._replies: list[int] = []
        self.exits: dict[int, int] = {}
        ready = json.loads(self._lines.readline() or b"{}")
        if "ready" not in ready:
            raise RuntimeError("the test zygote did not start")
        threading.Thread(target=self._read, name="zygote-reader", daemon=True).start()

    def _read(self) -> None:
        for line in self._lines:
            message = json.loads(line)
            with self._changed:
                if "pid" in message:
                    self._replies.append(message["pid"])
                else:
                    self.exits[message["exit"]] = message["code"]
                self._changed.notify_all()

    def spawn(self, args: list[str], env: dict[str, str], cwd: Path) -> "ForkedProcess":
        stdin = os.open(os.devnull, os.O_RDONLY)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        spec = json.dumps({"args": args, "env": env, "cwd": str(cwd)}).encode()
        try:
            with self._spawn_lock:
                socket.send_fds(self._control, [spec + b"\n"], [stdin, out_w, err_w])
                with self._changed:
                    if not self._changed.wait_for(lambda: bool(self._replies), timeout=60):
                        raise RuntimeError("the test zygote did not fork")
                    pid = self._replies.pop(0)
        finally:
            for fd in (stdin, out_w, err_w):
                os.close(fd)
        return ForkedProcess(self, pid, os.fdopen(out_r, "rb"), os.fdopen(err_r, "rb"))

    def wait_exit(self, pid: int, timeout: float | None) -> int | None:
        with self._changed:
            self._changed.wait_for(lambda: pid in self.exits, timeout=timeout)
            return self.exits.get(pid)


class ForkedProcess:
    """A kernel forked by the zygote, seen as much like a ``subprocess.Popen`` as the tests need."""

    def __init__(self, zygote: Zygote, pid: int, stdout: IO[bytes], stderr: IO[bytes]) -> None:
        self._zygote, self.pid, self.stdout, self.stderr = zygote, pid, stdout, stderr
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self._zygote.exits.get(self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self.returncode = self._zygote.wait_exit(self.pid, timeout)
            if self.returncode is None:
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout or 0)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


_zygote: Zygote | None = None
_zygote_pid = 0


def zygote() -> Zygote:
    """This worker's zygote, started on first use (and again in a forked worker, which cannot share it)."""
    global _zygote, _zygote_pid
    if _zygote is None or _zygote_pid != os.getpid() or _zygote._proc.poll() is not None:
        _zygote, _zygote_pid = Zygote(), os.getpid()
    return _zygote


if __name__ == "__main__":
    _serve(socket.socket(fileno=int(sys.argv[1])))
