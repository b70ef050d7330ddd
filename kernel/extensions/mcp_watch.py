"""Noticing a hand edit of ``mcp.json`` while the kernel runs: a stat on the kernel's clock.

Settings and ``agentdesk mcp add|rm`` ask the running kernel to read mcp.json again after they save;
a person editing the file in a text editor asks nobody. The kernel service therefore looks at the
file's metadata (inode, size, mtime, ctime: an editor that writes a new file and renames it over the
old one changes the inode) every ``MCP_WATCH_S`` seconds on its own clock, and reads the file again
when it differs from what the last reading saw. One check is a stat: 3 µs (median, 2026-12-01, a
2-core machine at load 7, benchmarks/mcp_watch_bench.py), so the watch costs nothing worth a thread.
An inotify watch (watchdog, which the workspaces use) would have to watch the whole home folder, and
so wake for ``ledger.db`` and its WAL there too (410 events for 1,000 appends in the same run); the
stat also sees edits where inotify sees none (a network home). The price is the delay: a hand edit
applies within 2 s. Tests move a ``ManualClock``: nothing sleeps.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable

if TYPE_CHECKING:
    from ..core.clock import Clock
    from .mcp_status import McpReload

MCP_WATCH_S = 2.0
Signature = tuple[int, int, int, int] | None


def signature(path: Path) -> Signature:
    """What identifies this version of the file without reading it (None: there is no file)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


@dataclass
class McpFile:
    """One home's mcp.json and the version the kernel last read."""

    path: Path
    seen: Signature = None

    def mark(self) -> None:
        """Called just before the file is read (an edit after this is seen as a change next time)."""
        self.seen = signature(self.path)

    def changed(self) -> bool:
        return signature(self.path) != self.seen


async def watch(current: "Callable[[], McpFile | None]", clock: "Clock", reload: "Callable[[], Awaitable[McpReload]]",
                report: "Callable[[McpReload], None]", interval_s: float = MCP_WATCH_S) -> None:
    """Until cancelled: every ``interval_s`` on ``clock``, read the ``current()`` mcp.json again if it changed
    since the kernel last read it, and report what that did. A failure is reported and the watch goes on;
    it never ends the kernel."""
    while True:
        await clock.sleep(interval_s)
        file = current()
        if file is None or not file.changed():
            continue
        try:
            report(await reload())
        except Exception as exc:  # noqa: BLE001 - a hostile file must not stop the watch or the kernel
            print(f"agentdesk kernel: reading {file.path.name} again failed: {type(exc).__name__}: {exc}",
                  file=sys.stderr, flush=True)
