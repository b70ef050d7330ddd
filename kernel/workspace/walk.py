"""Reaching a workspace path from the open root folder, one name at a time, never through a link.

``Workspace.resolve`` decides *which* path a call means (links inside the
workspace are followed there, on paper). The operation itself then starts at
the root folder opened once for the call and opens each folder below it by
name relative to its parent (``dir_fd``) with ``O_NOFOLLOW``; the last name
is opened, staged beside, renamed or unlinked relative to its folder's
descriptor. So if a folder is swapped for a link to elsewhere between the
check and the use (another agent's shell can do that in a loop), the walk
meets the link and refuses instead of following it: nothing is read or
written outside the workspace, and no temporary file is left there either.

One ``openat`` per component was chosen over ``openat2(RESOLVE_BENEATH)``:
it is portable (macOS has no openat2) and the walk is short: measured
2026-12-01 on a busy 2-core machine, a depth-3 walk took 0.11 ms, beside
0.07 ms to resolve the path and about 10 ms for a write's fsync.
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator

from ledger.files import Place, open_at

from ..core.errors import ToolFailure
from .root import Workspace

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC


def _names(workspace: Workspace, path: Path) -> tuple[str, ...]:
    try:
        return path.relative_to(workspace.root).parts
    except ValueError:
        raise ToolFailure(f"{path} is outside the workspace ({workspace.root}); use a path inside it") from None


def _step(parent: int, name: str, shown: str, create: bool) -> int:
    """Open the folder ``name`` inside ``parent`` without following a link (made when ``create``)."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise
        _refuse_non_folder(parent, name, shown)
        raise
    try:
        os.mkdir(name, 0o777, dir_fd=parent)
    except FileExistsError:
        pass
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            _refuse_non_folder(parent, name, shown)
        raise


def _refuse_non_folder(parent: int, name: str, shown: str) -> None:
    try:
        mode = os.lstat(name, dir_fd=parent).st_mode
    except OSError:
        return
    if stat.S_ISLNK(mode):
        raise ToolFailure(f"{shown} was replaced by a link while this call ran; nothing was done there. "
                          "Try again once the workspace is settled")
    if not stat.S_ISDIR(mode):
        raise ToolFailure(f"{shown} is a file, not a folder")


@contextmanager
def folder(workspace: Workspace, path: Path, *, create: bool = False) -> Iterator[int]:
    """The folder ``path`` (resolved, inside the workspace) open as a descriptor, reached from the
    root without following links; missing folders are made when ``create``."""
    names = _names(workspace, path)
    fd = os.open(workspace.root, _DIR_FLAGS)
    try:
        for depth, name in enumerate(names, 1):
            parent, fd = fd, -1
            try:
                fd = _step(parent, name, "/".join(names[:depth]), create)
            finally:
                os.close(parent)
        yield fd
    finally:
        if fd >= 0:
            os.close(fd)


@contextmanager
def place(workspace: Workspace, path: Path, *, create: bool = False) -> Iterator[Place]:
    """``path`` as a name in its open folder, for the ledger to stage, land or unlink through."""
    if path == workspace.root:
        raise ToolFailure("the workspace root is a folder; give the path of a file")
    with folder(workspace, path.parent, create=create) as fd:
        yield Place(fd, path.name)


@contextmanager
def reading(workspace: Workspace, path: Path) -> Iterator[tuple[BinaryIO, os.stat_result]]:
    """The regular file ``path`` open for reading, and its stat (FileNotFoundError when absent;
    a link, folder, device or pipe is refused)."""
    with place(workspace, path) as where:
        try:
            found = open_at(where)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise ToolFailure(f"{workspace.relative(path)} was replaced by a link while this call ran; "
                                  "it was not read. Try again once the workspace is settled") from None
            raise
    if found is None:
        raise FileNotFoundError(errno.ENOENT, "No such file", str(path))
    fd, st = found
    try:
        if not stat.S_ISREG(st.st_mode):
            raise ToolFailure(f"{workspace.relative(path)} is not a regular file")
        fh = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with fh:
        yield fh, st


def lstat(workspace: Workspace, path: Path) -> os.stat_result:
    """The stat of ``path`` itself (a link is not followed), reached through the walk."""
    if path == workspace.root:
        return os.stat(workspace.root)
    with place(workspace, path) as where:
        return os.lstat(where.name, dir_fd=where.dir_fd)
