"""Shell commands leave no zombie below the kernel (issue 23).

The kernel is a child subreaper (kernel.service.peers), so whatever a command's
bubblewrap leaves behind is re-parented to it; bwrap's own reaper init used to
outlive bwrap by a moment and stay a zombie of the kernel, one per command (14
after 12 commands). A real kernel process runs twelve real sandboxed commands
for a real ``agentdesk ask`` (one of them leaves a job in the background, one
fails), and the kernel's children are read from /proc afterwards.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

from tests.fakes import Text, ToolCall, Turn

from .conftest import ROOT, agentdesk, hello

COMMANDS = 12


def children(pid: int) -> list[tuple[int, str, str]]:
    """(pid, state, name) of every child of ``pid``, from /proc."""
    out = []
    for task in os.listdir(f"/proc/{pid}/task"):
        for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split():
            try:
                stat = Path(f"/proc/{child}/stat").read_text()
            except OSError:
                continue  # reaped between the two reads
            out.append((int(child), stat[stat.rfind(")") + 2], stat[stat.find("(") + 1:stat.rfind(")")]))
    return out


def test_twelve_shell_commands_leave_no_zombie_below_the_kernel(kernel_proc, kernel_env, srv, tmp_path):
    commands = [f"echo {i} > f{i}.txt" for i in range(COMMANDS - 2)]
    commands += ["sleep 30 & echo started > bg.txt", "echo failing > x.txt; exit 3"]
    srv.script(*[Turn(parts=(ToolCall("shell_exec", {"command": c}),)) for c in commands],
               Turn(parts=(Text("all done"),)))
    done = subprocess.run(agentdesk("ask", "run them", "--workspace", str(tmp_path), "--grant", "shell.exec=5m"),
                          env=kernel_env, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "all done" in done.stdout and done.stderr.count("[tool] shell_exec") == COMMANDS, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*(f"f{i}.txt" for i in range(COMMANDS - 2)),
                                                                 "bg.txt", "x.txt"])
    assert kernel_proc.proc is not None
    zombies = [c for c in children(kernel_proc.proc.pid) if c[1] in "ZX"]
    assert zombies == [], zombies
    assert kernel_proc.stop() == 0


FORKING_SERVER = """#!/bin/sh
# an MCP stdio server that double-forks on its way up: the subshell ends at once, so its background
# sleep is an orphan (re-parented to the kernel, the nearest subreaper), and the server, which never
# waits for the subshell, leaves it a zombie of its own that the kernel inherits when the server stops
(sleep 0.2 & echo $! > "$1/orphan.pid")
(exit 0) &
exec "$2" "$3"
"""


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] not in "ZX"
    except FileNotFoundError:
        return False


def _until_reaped(orphan: int, kernel: int, socket_path: Path) -> None:
    """Wait on events, never on time: for the orphan's exit (its pidfd turns readable), then for the kernel to
    have handled the SIGCHLD each ended child sent it: a socket round trip takes several turns of the kernel's
    loop, and the signal's handler (it reaps) runs on the turn its wake-up arrives. A few round trips at most;
    the assertions after say what is left."""
    try:
        pidfd = os.pidfd_open(orphan)
    except ProcessLookupError:  # gone already, reaped
        pidfd = None
    if pidfd is not None:
        try:
            select.select([pidfd], [], [], 30)
        finally:
            os.close(pidfd)
    for _ in range(3):
        if not [c for c in children(kernel) if c[1] in "ZX"]:
            return
        assert hello(socket_path) is not None


def test_orphans_of_a_double_forking_mcp_server_and_of_commands_are_reaped(kernel_proc, kernel_env, srv, tmp_path):
    from tests.extensions.conftest import SERVER

    script = tmp_path / "forking-server.sh"
    script.write_text(FORKING_SERVER)

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(agentdesk(*args), env=kernel_env, cwd=ROOT, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=300)

    added = cli("mcp", "add", "fork", "--command", f"/bin/sh {script} {tmp_path} {sys.executable} {SERVER}")
    assert added.returncode == 0, added.stderr
    orphan = int((tmp_path / "orphan.pid").read_text())
    srv.script(Turn(parts=(ToolCall("mcp__fork__echo", {"text": "hi"}),)),
               Turn(parts=(ToolCall("shell_exec", {"command": "(sleep 0.1 &) ; echo forked"}),)),
               Turn(parts=(Text("all done"),)))
    done = cli("ask", "go", "--workspace", str(tmp_path), "--grant", "shell.exec=5m", "--grant", "mcp.fork=5m")
    assert done.returncode == 0 and "all done" in done.stdout, done.stderr
    removed = cli("mcp", "rm", "fork")  # the server stops; its zombie child is the kernel's now
    assert removed.returncode == 0, removed.stderr
    assert kernel_proc.proc is not None
    kernel = kernel_proc.proc.pid
    _until_reaped(orphan, kernel, kernel_proc.socket)
    assert not Path(f"/proc/{orphan}").exists(), "the MCP server's orphan was never reaped"
    assert [c for c in children(kernel) if c[1] in "ZX"] == []
    assert kernel_proc.stop() == 0
