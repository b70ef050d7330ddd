"""What ``agentdesk ask`` imports when a kernel serves the home: the socket client and the terminal views.

The speed goal (issue 11: start to the first provider request <= 150 ms
through a kernel, ``benchmarks/service_bench.py``) holds only while the
attach path leaves the vendor SDKs, the automations, the ledger's store and
the rest of the kernel to the kernel process, and asyncio, the events and the
settings types wait until the prompt is sent. A real ``ask`` in a real
subprocess reports its ``sys.modules`` (and those it held at the send), so the
speed does not slip back unnoticed. The public names stay whole: each one of ``kernel``,
``kernel.api`` and ``ledger`` (imported on first use) resolves.
"""

from __future__ import annotations

import json
import subprocess
import sys

import kernel
import kernel.api as api
import ledger

from tests.fakes import Text, Turn

from .conftest import ROOT

# Runs `agentdesk ask` in this process, then prints the modules it imported, and those it had imported
# when it sent the prompt (the real channel, observed on its way through: nothing is faked).
ASK_THEN_LIST = """
import json, sys
from kernel.service.channel import SyncChannel
at_send = []
real_call_raw = SyncChannel.call_raw
def call_raw(self, method, params=None):
    if method == "agents.send":
        at_send.extend(sorted(sys.modules))
    return real_call_raw(self, method, params)
SyncChannel.call_raw = call_raw
from desktop.launcher import main
code = main(["ask", "say ok", "--workspace", sys.argv[1]])
print(json.dumps({"code": code, "modules": sorted(sys.modules), "at_send": at_send}))
"""

NOT_ON_THE_ATTACH_PATH = (
    "anthropic", "openai", "google", "httpx", "PySide6", "qasync",  # the SDKs and Qt
    "kernel.automations", "kernel.facade", "kernel.agents", "kernel.mail", "kernel.extensions",  # the kernel's rooms
    "kernel.tools.registry", "kernel.tools.fs", "kernel.providers.lazy", "kernel.providers.registry",
    "ledger.store", "ledger.undo", "ledger.integrity",  # the record itself stays in the kernel process
)

NOT_BEFORE_THE_SEND = ("asyncio", "kernel.service.client", "kernel.core.events", "kernel.config.settings", "kernel.cli.terminal")


def test_ask_through_a_running_kernel_imports_neither_the_sdks_nor_the_automations(kernel_proc, kernel_env, srv,
                                                                                      tmp_path):
    srv.script(Turn(parts=(Text("ok from the kernel"),)))
    done = subprocess.run([sys.executable, "-c", ASK_THEN_LIST, str(tmp_path)], env=kernel_env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    text, _, report = done.stdout.rpartition("\n{")
    found = json.loads("{" + report)
    assert found["code"] == 0 and "ok from the kernel" in text, done.stdout + done.stderr
    assert len(srv.requests) == 1  # the agent ran, in the kernel
    modules = found["modules"]
    assert "kernel.service.client" in modules  # it did attach
    leaked = [m for m in modules if any(m == bad or m.startswith(bad + ".") for bad in NOT_ON_THE_ATTACH_PATH)]
    assert leaked == []
    # Up to the send, blocking sockets: asyncio (20-80 ms to import) and the heavy types come after it.
    at_send = found["at_send"]
    assert "kernel.service.channel" in at_send  # the prompt was sent, and seen being sent
    early = [m for m in at_send if any(m == bad or m.startswith(bad + ".") for bad in NOT_BEFORE_THE_SEND)]
    assert early == []


def test_every_public_name_resolves_on_first_use():
    assert all(getattr(api, name) is not None for name in api.__all__)
    assert all(getattr(kernel, name) is not None for name in kernel.__all__)
    assert all(getattr(ledger, name) is not None for name in ledger.__all__)
    assert set(dir(api)) >= set(api.__all__) and set(dir(ledger)) >= set(ledger.__all__)
