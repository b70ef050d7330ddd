"""The orphan reaper (kernel.service.orphans) reaps what the process inherited and never a child it started
itself: that one's exit status belongs to its waiter (Popen.wait, asyncio's child watcher).

It runs in a child Python process made a subreaper (so the orphans come to it, not to this worker): a
process of its own that ended, and a double-forked orphan that ended, are both zombies when ``reap``
runs; only the orphan is reaped, and the own child's waiter still reads its real exit status.
"""

from __future__ import annotations

import json
import subprocess
import sys

from .conftest import ROOT

SCRIPT = r"""
import json, os, select, subprocess, sys
from kernel.service.orphans import install, reap, children
from kernel.service.peers import become_subreaper

assert become_subreaper()
install()
own = subprocess.Popen(["/bin/sh", "-c", "exit 7"])
r, w = os.pipe()
# the middle shell ends at once; its background child is re-parented to us and ends after writing its pid
subprocess.run(["/bin/sh", "-c", f"/bin/sh -c 'echo $$ >&{w}' & exit 0"], pass_fds=(w,), check=True)
os.close(w)
orphan = int(os.read(r, 64))
for pid in (own.pid, orphan):  # both ended (a pidfd turns readable at exit): zombies now
    fd = os.pidfd_open(pid)
    select.select([fd], [], [], 30)
    os.close(fd)
states = {pid: open(f"/proc/{pid}/stat").read().rpartition(")")[2].split()[0] for pid in (own.pid, orphan)}
reaped = reap()
print(json.dumps({"states": list(states.values()), "reaped": reaped, "orphan": orphan, "own": own.pid,
                  "own_status": own.wait(), "left": children(os.getpid())}))
"""


def test_the_reaper_takes_the_orphan_and_leaves_the_own_child_to_its_waiter():
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["states"] == ["Z", "Z"]
    assert got["reaped"] == [got["orphan"]]  # the orphan, and only it
    assert got["own_status"] == 7  # the own child's status was not stolen
    assert got["left"] == []
