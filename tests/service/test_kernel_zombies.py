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
import subprocess
from pathlib import Path

from tests.fakes import Text, ToolCall, Turn

from .conftest import ROOT, agentdesk

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
