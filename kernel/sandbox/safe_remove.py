"""Removing a folder tree of our own without ever following a link or leaving it.

Stage folders (``kernel.sandbox.stages``) hold what sandboxed commands made:
links to anywhere, folders a command made mode 000, and overlayfs's own
``work/work`` (mode 000). ``shutil.rmtree`` stops at an unreadable folder, and
the usual fix, ``os.chmod(path)``, follows a link. Here every step is made
relative to an open folder descriptor, a name is never resolved through a
link (``O_NOFOLLOW``, ``follow_symlinks=False``), and a folder we may not read
is unlocked through the descriptor of that very inode (``O_PATH``), so a link
swapped in meanwhile cannot redirect anything. Links are removed as links.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path: Path | str) -> bool:
    """Remove ``path`` (a folder tree, a file or a link; gone already is fine); False when part stays."""
    path = os.path.abspath(path)
    parent, name = os.path.split(path)
    try:
        parent_fd = os.open(parent, _DIR_FLAGS)
    except OSError:
        return not os.path.lexists(path)
    try:
        return remove_at(parent_fd, name)
    finally:
        os.close(parent_fd)


def remove_at(parent_fd: int, name: str, *, depth: int = 0) -> bool:
    """Remove the entry ``name`` of the open folder ``parent_fd``, never following a link."""
    try:
        st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(name, dir_fd=parent_fd)
            return True
        if depth > 2000:  # deeper than any real tree: refuse rather than exhaust the stack
            return False
        fd = _open_dir(parent_fd, name, st)
        if fd is None:
            return False
        try:
            with os.scandir(fd) as it:
                names = [entry.name for entry in it]
            ok = all([remove_at(fd, sub, depth=depth + 1) for sub in names])
        finally:
            os.close(fd)
        os.rmdir(name, dir_fd=parent_fd)
        return ok
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _open_dir(parent_fd: int, name: str, st: os.stat_result) -> int | None:
    """Open a folder to list it; a folder without read/search bits is unlocked first (same inode only)."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except PermissionError:
        pass
    handle = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent_fd)
    try:
        now = os.fstat(handle)
        if not stat.S_ISDIR(now.st_mode) or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            return None
        os.chmod(f"/proc/self/fd/{handle}", 0o700)  # the magic link names this inode, not a path
    finally:
        os.close(handle)
    return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
