"""The suite's own leak check (tests/leftovers.py): a run names and stops what its tests left running, and
a pytest run inside a test (as tests/desktop/x11.py starts one) never takes the outer run's processes for
its own. Found 2026-12-04: with the outer run's tag inherited, the inner run's end stopped every worker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.leftovers import TAG, gone, stop

ROOT = Path(__file__).resolve().parents[1]

LEAKY = '''
import subprocess, sys
from pathlib import Path

def test_leaves_a_process_running(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "import signal; signal.pause()"], start_new_session=True)
    Path({out!r}).write_text(str(proc.pid))
'''


def test_a_leaked_process_is_named_and_stopped_and_the_outer_runs_are_left_alone(tmp_path):
    out = tmp_path / "pid"
    (tmp_path / "test_leaky.py").write_text(LEAKY.format(out=str(out)))
    outer = subprocess.Popen([sys.executable, "-c", "import signal; signal.pause()"],  # one of this run's own
                             env={**os.environ, TAG: os.environ[TAG]}, start_new_session=True)
    try:
        inner = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-p", "tests.leftovers",
             "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path / "test_leaky.py")],
            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
        leaked = int(out.read_text())
        assert inner.returncode == 0, inner.stdout + inner.stderr
        assert "processes left running by tests (stopped now)" in inner.stdout
        assert f"pid {leaked} " in inner.stdout and "test_leaky.py::test_leaves_a_process_running (call)" in inner.stdout
        assert gone(leaked)
        assert outer.poll() is None, "the inner run stopped a process of the outer run"
    finally:
        stop(outer.pid)
        outer.wait(timeout=30)
