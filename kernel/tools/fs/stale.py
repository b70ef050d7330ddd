"""Removing the temporary files a killed write left behind.

A write stages ``.NAME.<12 hex>.agentdesk`` beside its target and renames it
into place; a SIGKILL in between leaves the temporary file. When an agent
first works in a workspace, the kernel removes those that no write can still
be using: older than a minute (a write touches its file as it goes, and
waits at most the ledger's 10 s busy timeout before landing), so a write in
flight in another process sharing the workspace is never disturbed. The walk
is bounded and skips the folders file tools skip, so a huge tree costs at
most ``max_entries`` directory entries (10,000 took 20 ms here, 2026-12-01).
Nothing is recorded: these files were never changes, and the snapshot,
fs_list and fs_search ignore them too.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Callable

from ledger.files import is_temp_name

from ...workspace.ignore import SKIP_DIRS

STALE_AFTER_S = 60.0
MAX_ENTRIES = 10_000


def sweep_temp_files(root: Path, *, now: Callable[[], float] = time.time, stale_after_s: float = STALE_AFTER_S,
                     max_entries: int = MAX_ENTRIES) -> int:
    """Remove stale staged files under ``root`` (regular files only, links never followed); how many."""
    cutoff = now() - stale_after_s
    removed = seen = 0
    try:
        walker = os.fwalk(root, follow_symlinks=False)
        for _folder, dirs, names, dir_fd in walker:
            seen += len(dirs) + len(names)
            if seen > max_entries:
                break
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
            for name in names:
                if is_temp_name(name) and _stale(name, dir_fd, cutoff):
                    try:
                        os.unlink(name, dir_fd=dir_fd)
                        removed += 1
                    except OSError:
                        pass
    except OSError:
        pass
    return removed


def _stale(name: str, dir_fd: int, cutoff: float) -> bool:
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_mtime < cutoff
