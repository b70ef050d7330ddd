"""The desktop attaches to the home's kernel service, starting one (detached) when none runs.

Run in a subprocess so ``sys.modules`` tells the truth: the desktop process
never imports a provider SDK; the kernel it started outlives it.
"""

from __future__ import annotations

import subprocess
import sys

from kernel.service.client import kernel_running
from kernel.service.home import read_holder

from .conftest import ROOT, agentdesk, clean_env, hello
from kernel.config.home import socket_path

DESKTOP = r"""
import asyncio, sys
from pathlib import Path
from desktop.app import SDK_MODULES, attach_desktop, make_app
import qasync

app = make_app([])
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)
with loop:
    desk = loop.run_until_complete(attach_desktop(Path(sys.argv[1]), grant_delay_ms=0))
    desk.window.show()
    print("agents", len(desk.kernel.agents.list()), flush=True)
    print("footer", desk.window.status.counts.footer(), flush=True)
    print("sdk", ",".join(m for m in SDK_MODULES if m in sys.modules) or "none", flush=True)
    loop.run_until_complete(desk.kernel.aclose())
"""


def test_the_desktop_starts_a_kernel_that_outlives_it_and_loads_no_sdk(agentdesk_home):
    env = clean_env(agentdesk_home, {"QT_QPA_PLATFORM": "offscreen", "ANTHROPIC_API_KEY": "test-key"})
    assert not kernel_running(agentdesk_home)
    done = subprocess.run([sys.executable, "-c", DESKTOP, str(agentdesk_home)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    try:
        assert done.returncode == 0, done.stderr
        lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
        assert lines["agents"] == "0" and "kernel attached" in lines["footer"]
        assert lines["sdk"] == "none"
        assert kernel_running(agentdesk_home)  # the desktop is gone; its kernel is not
        holder = read_holder(agentdesk_home)
        assert holder is not None and hello(socket_path(agentdesk_home))["result"]["pid"] == holder.pid
        again = subprocess.run([sys.executable, "-c", DESKTOP, str(agentdesk_home)], env=env, cwd=ROOT,
                               capture_output=True, text=True, timeout=120)
        assert again.returncode == 0, again.stderr
        assert read_holder(agentdesk_home).pid == holder.pid  # attached to the same kernel, none started
    finally:
        stopped = subprocess.run(agentdesk("kernel", "--stop"), env=env, cwd=ROOT, capture_output=True, text=True,
                                 timeout=60)
    assert stopped.returncode == 0, stopped.stderr
    assert not kernel_running(agentdesk_home)
