"""Stopping whatever kernel still serves a test's home, so no test leaves one running.

A test that starts a kernel the way a user would (the desktop's child, ``ensure_kernel``, ``agentdesk ask``)
has no handle on it once its client is gone: the kernel is found by the home's lock (kernel/service/home.py),
asked to stop with SIGTERM (it stops as on a user's ``agentdesk kernel stop``), killed if it has not within
the deadline, and waited for through a pidfd (no polling, no sleep)."""

from __future__ import annotations

from pathlib import Path

from kernel.service.home import is_locked, read_holder
from tests.leftovers import ancestors, stop


def stop_home_kernel(home: Path, deadline_s: float = 30.0) -> int | None:
    """Stop the kernel holding ``home``'s lock, if one does; returns its pid (None: none was running)."""
    holder = read_holder(home) if is_locked(home) else None
    if holder is None or holder.pid in ancestors():  # a kernel served in this very process stops with its test
        return None
    if not stop(holder.pid, deadline_s):
        raise AssertionError(f"the kernel of {home} (pid {holder.pid}) outlived SIGKILL")
    return holder.pid
