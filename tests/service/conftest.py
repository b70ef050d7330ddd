"""Real kernel processes on a tmp home, and an in-process server on its own loop thread.

``KernelProcess`` starts ``agentdesk kernel`` as a subprocess with the
loopback fake provider's base URL and waits for the readiness line it prints
on stdout when it serves (reading the pipe with a deadline, no polling). ``ThreadServer``
runs a ``KernelServer`` over an in-process kernel on a loop in a thread, for
tests that speak raw bytes to it through blocking sockets (fuzz, peer uid).
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from kernel.config.home import socket_path
from tests.fakes import FakeProviderServer

ROOT = Path(__file__).resolve().parents[2]
START_DEADLINE_S = 30.0


def clean_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "OPENAI", "GEMINI", "GOOGLE"))}
    env.update({"AGENTDESK_HOME": str(home), "PYTHONPATH": str(ROOT)})
    env.update(extra or {})
    return env


def agentdesk(*args: str) -> list[str]:
    return [sys.executable, "-m", "desktop.launcher", *args]


CHECKED = "agentdesk kernel: checked at start:"


class KernelProcess:
    """``agentdesk kernel`` for ``home``: forked from this worker's pre-imported zygote (tests/service/zygote.py),
    or, with ``fresh``, started from nothing as ``agentdesk`` starts it (for tests of the start itself)."""

    def __init__(self, home: Path, env: dict[str, str], *, fresh: bool = False) -> None:
        self.home, self.env, self.fresh = home, env, fresh
        self.proc: Any = None  # a subprocess.Popen, or a zygote's ForkedProcess (the same surface)

    @property
    def socket(self) -> Path:
        return socket_path(self.home)

    def start(self, checked: bool = True) -> "KernelProcess":
        """Start it and read its readiness line; with ``checked``, also wait for the line on stderr that says its
        checks at start answered (it serves before they do: kernel/service/start_checks.py)."""
        if self.fresh:
            self.proc = subprocess.Popen(agentdesk("kernel"), env=self.env, cwd=ROOT, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        else:
            from .zygote import zygote

            self.proc = zygote().spawn(["kernel"], self.env, ROOT)
        assert self.proc.stdout is not None
        line = read_line(self.proc.stdout, START_DEADLINE_S)  # its readiness line: serving from now on
        if not line.startswith(b"agentdesk kernel: serving on "):
            if self.proc.poll() is None:
                raise AssertionError(f"the kernel did not say it serves in time: {line!r}")
            self.proc.wait()
            raise AssertionError(f"the kernel exited: {self.proc.stderr.read().decode() if self.proc.stderr else ''}")
        assert str(self.socket).encode() in line and f"(pid {self.proc.pid},".encode() in line, line
        if checked:
            self.checked()
        return self

    def checked(self) -> bytes:
        """The kernel's line on stderr saying its checks at start answered (the lines before it are skipped)."""
        assert self.proc is not None and self.proc.stderr is not None
        end, data = time.monotonic() + START_DEADLINE_S, b""
        while CHECKED.encode() not in data or not data.split(CHECKED.encode(), 1)[1].count(b"\n"):
            left = end - time.monotonic()
            chunk = os.read(self.proc.stderr.fileno(), 4096) if left > 0 and select.select(
                [self.proc.stderr], [], [], left)[0] else b""
            assert chunk, f"the kernel did not say its checks at start answered: {data!r}"
            data += chunk
        return CHECKED.encode() + data.split(CHECKED.encode(), 1)[1].split(b"\n", 1)[0]

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=30)


def read_line(pipe: Any, deadline_s: float) -> bytes:
    """The first line a real process writes to ``pipe`` within ``deadline_s`` (what came, at EOF or time out)."""
    end = time.monotonic() + deadline_s
    data = b""
    while b"\n" not in data:
        left = end - time.monotonic()
        if left <= 0 or not select.select([pipe], [], [], left)[0]:
            break
        chunk = os.read(pipe.fileno(), 4096)
        if not chunk:
            break
        data += chunk
    return data.partition(b"\n")[0]


def hello(path: Path) -> dict[str, Any] | None:
    """The kernel's handshake on ``path``, or None when nothing answers."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    try:
        sock.connect(str(path))
        sock.sendall(b'{"jsonrpc":"2.0","id":1,"method":"hello","params":{"version":1}}\n')
        reply = sock.makefile("rb").readline()
        return json.loads(reply) if reply else None
    except OSError:
        return None
    finally:
        sock.close()


@pytest.fixture
def srv():
    with FakeProviderServer() as s:
        yield s


@pytest.fixture
def kernel_env(srv, agentdesk_home):
    return clean_env(agentdesk_home, {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.anthropic_base_url})


@pytest.fixture
def kernel_proc(kernel_env, agentdesk_home):
    k = KernelProcess(agentdesk_home, kernel_env).start()
    yield k
    if k.proc is not None and k.proc.poll() is None:
        k.stop()


class ThreadServer:
    """A KernelServer over an in-process kernel, its loop in a thread of its own."""

    def __init__(self, tmp: Path, path: Path) -> None:
        from kernel.providers.scripted import ScriptedProvider

        self.tmp, self.path = tmp, path
        self.provider = ScriptedProvider()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server = self.call(self._start())

    async def _start(self) -> Any:
        from kernel.compose import build_kernel
        from kernel.service.server import KernelServer
        from kernel.config.settings import Settings
        from ledger import Ledger

        ws = self.tmp / "ws"
        ws.mkdir(exist_ok=True)
        self.ledger = Ledger(self.tmp / "ledger.db")
        self.kernel = build_kernel(ledger=self.ledger, settings=Settings(user_name="Ada", workspace=str(ws)),
                             providers=lambda _n: self.provider)
        server = KernelServer(self.kernel, self.path)
        await server.start()
        return server

    def call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=30)

    def close(self) -> None:
        async def down() -> None:
            await self.server.stop()
            await self.kernel.aclose()

        self.call(down())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=30)
        self.ledger.close()
        self.loop.close()


@pytest.fixture
def thread_server(tmp_path):
    s = ThreadServer(tmp_path, tmp_path / "k.sock")
    yield s
    s.close()
