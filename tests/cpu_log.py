"""Where the suite's CPU goes (issue 22: the CI machine has two cores, so CPU, not wall time, is the budget).

With ``AGENTDESK_TEST_CPU_LOG=DIR`` each pytest process (each xdist worker) appends one JSON line per test to
``DIR/<worker>.jsonl``: its wall time, this process's CPU time (threads included) and the CPU time of the
child processes it reaped meanwhile (kernel and server processes it started and waited for). Wall time alone
says little on a loaded machine; a test with high wall and low CPU waits on something. ``benchmarks/
test_cpu_report.py DIR`` sums the lines by file. Off unless the variable is set.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

_DIR = os.environ.get("AGENTDESK_TEST_CPU_LOG")


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    if not _DIR:
        yield
        return
    wall, own, children = time.monotonic(), _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    yield
    line = {"test": item.nodeid, "wall": round(time.monotonic() - wall, 3),
            "cpu": round(_cpu(resource.RUSAGE_SELF) - own, 3),
            "children": round(_cpu(resource.RUSAGE_CHILDREN) - children, 3)}
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with (Path(_DIR) / f"{worker}.jsonl").open("a") as out:
        out.write(json.dumps(line) + "\n")
