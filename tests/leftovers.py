"""Nothing a test run starts outlives it.

Every process the suite starts inherits ``AGENTDESK_TEST_RUN``, a tag this plugin sets once per run (xdist's
workers inherit it from the controller). When the whole run has ended, every process still carrying the tag
after a few seconds' grace to end by itself (``SETTLE_S``) was left behind by a test: a kernel started as a
user would (detached, in its own session), a server whose stop was skipped. Each is named in the summary
with the test that was running when it started (its ``PYTEST_CURRENT_TEST``), then stopped: SIGTERM, and
SIGKILL if it has not ended within a few seconds. Found on 2026-12-04: every run left a kernel behind
(tests/service/test_desktop_detached.py)."""

from __future__ import annotations

import os
import select
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

TAG = "AGENTDESK_TEST_RUN"
GRACE_S = 5.0
SETTLE_S = 3.0


@dataclass(frozen=True)
class Leftover:
    pid: int
    command: str
    started_by: str


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        # always a new tag: a pytest run inside a test (tests/desktop/x11.py) must not take the outer run's
        # workers, which carry the outer tag, for its own leftovers
        os.environ[TAG] = uuid.uuid4().hex


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (state, parent, ...); None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2:].split()


def ancestors() -> set[int]:
    """This process and every process above it (never signalled)."""
    found, pid = set(), os.getpid()
    while pid > 1 and pid not in found:
        found.add(pid)
        fields = _stat(pid)
        if fields is None:
            break
        pid = int(fields[1])
    return found


def _environ(pid: int) -> dict[str, str]:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    return dict(item.split("=", 1) for item in raw.decode(errors="replace").split("\0") if "=" in item)


def gone(pid: int) -> bool:
    """``pid`` has ended (no such process, or a zombie waiting for its parent)."""
    fields = _stat(pid)
    return fields is None or fields[0] in ("Z", "X")


def leftovers(tag: str) -> list[Leftover]:
    """Live processes other than this one that carry ``tag``."""
    found, mine = [], ancestors()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in mine:
            continue
        pid = int(entry.name)
        env = _environ(pid)
        if env.get(TAG) != tag or gone(pid):
            continue
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        found.append(Leftover(pid, command[:160], env.get("PYTEST_CURRENT_TEST", "(no test)")))
    return found


def _ended(pidfds: list[int], within_s: float) -> set[int]:
    """Which of these pidfds' processes end within ``within_s`` (a pidfd is readable once its process has
    ended): waited for with poll, never by sleeping."""
    poller = select.poll()
    for fd in pidfds:
        poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + within_s
    ended: set[int] = set()
    while len(ended) < len(pidfds) and (left := deadline - time.monotonic()) > 0:
        for fd, _event in poller.poll(left * 1000):
            ended.add(fd)
            poller.unregister(fd)
    return ended


def stop(pid: int, grace_s: float = GRACE_S) -> bool:
    """SIGTERM, then SIGKILL if ``pid`` has not ended within ``grace_s``; True once it has ended (or was
    gone already)."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return True
    try:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                signal.pidfd_send_signal(pidfd, sig)
            except ProcessLookupError:
                return True
            if _ended([pidfd], grace_s):
                return True
        return False
    finally:
        os.close(pidfd)


_FOUND = pytest.StashKey[list[Leftover]]()


def pytest_sessionfinish(session: pytest.Session) -> None:
    tag = os.environ.get(TAG)
    if hasattr(session.config, "workerinput") or not tag or not os.path.isdir("/proc"):
        return
    found = still_running(leftovers(tag), SETTLE_S)
    for leftover in found:
        stop(leftover.pid)
    session.config.stash[_FOUND] = found


def still_running(found: list[Leftover], within_s: float) -> list[Leftover]:
    """Those of ``found`` that have not ended by themselves within ``within_s`` (a worker's helpers end just
    after it does: a zygote or multiprocessing's resource tracker reads its closed pipe, then exits)."""
    fds: dict[int, Leftover] = {}
    for leftover in found:
        try:
            fds[os.pidfd_open(leftover.pid)] = leftover
        except OSError:
            continue  # already gone
    try:
        ended = _ended(list(fds), within_s)
        return [leftover for fd, leftover in fds.items() if fd not in ended]
    finally:
        for fd in fds:
            os.close(fd)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    found = config.stash.get(_FOUND, [])
    if found:
        terminalreporter.section("processes left running by tests (stopped now)")
        for leftover in found:
            terminalreporter.line(f"pid {leftover.pid} `{leftover.command}` started during {leftover.started_by}")
