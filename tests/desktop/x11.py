"""A real X server with a real window manager, for the keyboard tests offscreen Qt cannot show.

``XSession`` starts Xvfb at 1024×700 (the smallest screen the desktop
promises to fit) on a display number nobody uses (``free_display``) and
openbox on it, once per test session. Xvfb says its
display number on a pipe when it is ready (``-displayfd``) and openbox runs
its ``--startup`` command once it manages the screen (it writes to a FIFO):
both are waited for with ``select``, never a sleep. Both are stopped by pid.

The desktop under test cannot share the pytest process (its QApplication is
offscreen, and a process has one), so ``run_scenario`` runs a scenario of
``x11_scenarios.py`` in a child pytest with ``QT_QPA_PLATFORM=xcb`` on this
display, where it opens the desktop attached to a kernel process (the ``main``
fixture, as users run it) and types with ``xdotool`` (XTest: the key events
go through the X server and the window manager to whichever window has the
focus, exactly as a person's would).
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.fakes.ci import in_ci

ROOT = Path(__file__).resolve().parents[2]
SCREEN = "1024x700x24"
START_S = 20.0
TOOLS = ("Xvfb", "openbox", "xdotool")


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def free_display() -> int:
    """A display number no X server here uses: no lock file, and its abstract socket free (an X server in
    another container that shares this network namespace is seen only there; ``:0`` often is one)."""
    start = 100 + os.getpid() % 400
    for number in range(start, start + 400):
        if os.path.exists(f"/tmp/.X{number}-lock"):
            continue
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.bind(f"\0/tmp/.X11-unix/X{number}")
        except OSError:
            continue
        finally:
            probe.close()
        return number
    raise RuntimeError("no free X display number")


def _wait_readable(fd: int, what: str) -> None:
    ready, _w, _x = select.select([fd], [], [], START_S)
    if not ready:
        raise RuntimeError(f"{what} did not start within {START_S:.0f} s")


def _read_line(fd: int, what: str) -> str:
    """Everything up to the newline: Xvfb writes its number and the newline apart, and dies of a closed pipe
    if the reader stopped after the number (CI saw "Cannot write display number to fd 15")."""
    said = b""
    while not said.endswith(b"\n"):
        _wait_readable(fd, what)
        chunk = os.read(fd, 64)
        if not chunk:
            break
        said += chunk
    return said.decode(errors="replace").strip()


@dataclass
class XSession:
    display: str
    xvfb: subprocess.Popen[bytes]
    wm: subprocess.Popen[bytes]

    @classmethod
    def start(cls, scratch: Path, attempts: int = 2) -> "XSession":
        """Xvfb and openbox on a free display; once more on another display if openbox could not open it."""
        for attempt in range(attempts):
            here = scratch / f"try{attempt}"
            here.mkdir(parents=True, exist_ok=True)
            try:
                return cls._start(here)
            except RuntimeError:
                if attempt == attempts - 1:
                    raise
        raise AssertionError("unreachable")

    @classmethod
    def _start(cls, scratch: Path) -> "XSession":
        read, write = os.pipe()
        with (scratch / "xvfb.log").open("wb") as out:
            xvfb = subprocess.Popen(["Xvfb", f":{free_display()}", "-displayfd", str(write), "-screen", "0", SCREEN,
                                     "-nolisten", "tcp",
                                     "-noreset"], pass_fds=(write,), stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        os.close(write)
        try:
            number = _read_line(read, "Xvfb")
        finally:
            os.close(read)
        if not number.isdigit():
            xvfb.kill()
            raise RuntimeError("Xvfb did not say its display number")
        display = f":{number}"
        fifo = scratch / "openbox-ready"
        os.mkfifo(fifo)
        ready = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        env = {**os.environ, "DISPLAY": display}
        env.pop("QT_QPA_PLATFORM", None)
        log = scratch / "openbox.log"
        with log.open("wb") as out:
            wm = subprocess.Popen(["openbox", "--sm-disable", "--startup", f"sh -c 'echo up > {fifo}'"], env=env,
                                  stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            _wait_readable(ready, "openbox")
        except RuntimeError as exc:
            cls(display, xvfb, wm).stop()
            said = log.read_text(errors="replace")[-1500:] + (scratch / "xvfb.log").read_text(errors="replace")[-1500:]
            raise RuntimeError(f"{exc} on {display}: {said}") from exc
        finally:
            os.close(ready)
        return cls(display, xvfb, wm)

    def stop(self) -> None:
        for proc in (self.wm, self.xvfb):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()

    def run_scenario(self, name: str, scratch: Path, timeout_s: float = 300.0) -> subprocess.CompletedProcess[str]:
        """Run ``x11_scenarios.py::name`` (or the whole file for ``""``) in a child pytest on this display; its
        output comes back whole."""
        env = {**os.environ, "DISPLAY": self.display, "QT_QPA_PLATFORM": "xcb", "CI": "true" if in_ci() else
               os.environ.get("CI", "")}
        env.pop("PYTEST_XDIST_WORKER", None)
        env.pop("PYTEST_CURRENT_TEST", None)
        target = f"{Path(__file__).with_name('x11_scenarios.py')}" + (f"::{name}" if name else "")
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-n", "0",
                               f"--basetemp={scratch}", target], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=timeout_s)


def xdotool(display: str, *args: str) -> None:
    """Real key events through the X server (XTest), to the window that has the focus."""
    subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": display}, check=True, timeout=60)
