"""Processes the kernel starts cannot use its socket (kernel.service.peers).

Real processes throughout: a real kernel process starts two MCP stdio
servers from the home's mcp.json; one connects to the socket itself, the
other double-forks first, so the process that connects is an orphan the
kernel (a child subreaper) adopted. Both are refused with a JSON-RPC error;
the test process, which is not below the kernel, is served all along.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernel.service import peers, protocol
from tests.service.conftest import KernelProcess, hello

PROBE = Path(__file__).with_name("peer_probe.py")
DEADLINE_S = 60.0


def wait_for(fd: int, proc: subprocess.Popen[bytes]) -> dict[str, object]:
    """What a probe process wrote into its FIFO (a real process the kernel starts: read with a deadline,
    looking at the kernel between waits)."""
    end = time.monotonic() + DEADLINE_S
    data = b""
    while True:
        left = end - time.monotonic()
        assert left > 0, "the probe never wrote"
        if not select.select([fd], [], [], min(1.0, left))[0]:
            assert proc.poll() is None, "the kernel exited"
            continue
        chunk = os.read(fd, 65536)
        if not chunk and data:  # the writer closed: all of it is here
            return json.loads(data)
        data += chunk


@pytest.fixture
def probing_kernel(kernel_env, agentdesk_home, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    fifos = {}
    for mode in ("direct", "orphan"):  # read ends held open from the start, so a probe never blocks writing
        os.mkfifo(out / mode)
        fifos[mode] = os.open(out / mode, os.O_RDONLY | os.O_NONBLOCK)
    sock = KernelProcess(agentdesk_home, kernel_env).socket
    servers = {mode: {"command": sys.executable, "args": [str(PROBE), mode, str(sock), str(out / mode)],
                      "timeout": 30} for mode in ("direct", "orphan")}
    (agentdesk_home / "mcp.json").write_text(json.dumps({"servers": servers}))
    runtime = tmp_path / "rt"
    runtime.mkdir(mode=0o700)
    k = KernelProcess(agentdesk_home, {**kernel_env, "XDG_RUNTIME_DIR": str(runtime)}).start()
    yield k, fifos
    if k.proc is not None and k.proc.poll() is None:
        k.stop()
    for fd in fifos.values():
        os.close(fd)


def test_an_mcp_server_the_kernel_started_is_refused(probing_kernel):
    k, fifos = probing_kernel
    assert k.proc is not None
    got = wait_for(fifos["direct"], k.proc)
    assert got["ppid"] == k.proc.pid  # a child of the kernel process
    assert got["leaked"] == [], got  # no AGENTDESK_HOME (the kernel has one) nor runtime folder in its environment
    reply = got.get("reply")
    assert isinstance(reply, dict) and reply.get("error", {}).get("code") == protocol.PEER_REFUSED, got
    assert reply["id"] == 1 and "result" not in reply  # the error answers its hello
    assert "started by the kernel" in reply["error"]["message"]
    served = hello(k.socket)  # the test process is not below the kernel: served
    assert served is not None and served["result"]["pid"] == k.proc.pid
    assert k.stop() == 0 and k.proc.stderr is not None
    log = k.proc.stderr.read().decode()  # kernel.log, for a kernel the desktop started
    # said in the log with the process it refused (the orphan probe may be the one said first; once a run
    # showed only the orphan's line before the stop, so the line is not pinned to this probe's pid)
    assert re.search(r"refused a client: the connecting process \(pid \d+\) was started by the kernel", log), log


def test_a_double_forked_orphan_is_adopted_by_the_kernel_and_refused(probing_kernel):
    k, fifos = probing_kernel
    assert k.proc is not None
    got = wait_for(fifos["orphan"], k.proc)
    assert got["ppid"] == k.proc.pid  # re-parented to the kernel (a child subreaper), not to init
    reply = got.get("reply")
    assert isinstance(reply, dict) and reply.get("error", {}).get("code") == protocol.PEER_REFUSED, got
    assert hello(k.socket) is not None


# ---- the walk itself, on real processes ---------------------------------------------------------------------


def _child(argv0: str | None = None) -> subprocess.Popen[bytes]:
    """A real process that waits on its stdin until the test closes it."""
    return subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE,
                            executable=argv0)


def test_a_child_is_refused_and_an_unrelated_process_is_not():
    child = _child()
    try:
        refused = peers.judge(child.pid, kernel_pid=os.getpid())
        assert refused is not None and refused.pid == child.pid and "started by the kernel" in refused.reason
        # judged from the child's point of view, this test process is above it, not below
        assert peers.judge(os.getpid(), kernel_pid=child.pid) is None
        assert peers.judge(os.getpid(), kernel_pid=os.getpid()) is None  # an in-process client
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)


def test_a_vanished_or_invisible_peer_is_refused():
    child = _child()
    assert child.stdin is not None
    child.stdin.close()
    child.wait(timeout=30)
    gone = peers.judge(child.pid, kernel_pid=os.getpid() + 1)  # reaped: no /proc entry any more
    assert gone is not None and "ended before it could be checked" in gone.reason
    hidden = peers.judge(0)
    assert hidden is not None and "pid namespace" in hidden.reason


def test_a_process_name_with_parentheses_and_spaces_does_not_fool_the_walk(tmp_path):
    odd = tmp_path / "x) Z 1 ("
    odd.symlink_to(sys.executable)
    child = _child(str(odd))
    try:
        assert peers.parent_of(child.pid) == os.getpid()
        assert peers.judge(child.pid, kernel_pid=os.getpid()) is not None
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)
