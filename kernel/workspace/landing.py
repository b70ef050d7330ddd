"""Landing a recorded upper-layer change in the workspace: from open folders, as recorded, or not at all.

``upper.UpperLayer`` records a command's changes in the ledger and then lands
them. Between the two, a folder of the workspace can be swapped for a link
(another agent's shell, any program), and going by path would then write or
delete wherever the link points. So every step here starts at the open
workspace root and walks down with the file tools' walker
(``kernel.workspace.walk``: one ``openat`` per name, never through a link),
and acts on the last name relative to its folder's descriptor.

What lands is what was recorded: the file the record hashed is opened from
the upper layer (walked the same way) and must still be the same inode with
the same size, mtime and ctime (any write or chmod moves the ctime), and it
is hard-linked into place through that descriptor (``/proc/self/fd``), so
no path is read again; where it cannot be linked (a mount inside the
workspace) its bytes are copied from the descriptor and the inode checked
once more. The file it replaces, or deletes, must still be the one the record
saw. Anything else raises ``NotAsRecorded`` (or the walker's refusal), and the
caller lists that change as recorded but not landed.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from contextlib import ExitStack
from pathlib import Path
from typing import NamedTuple

from ledger.blobs import Opened
from ledger.files import Place, discard, stage, temp_name

from ..core.errors import ToolFailure
from ..sandbox.safe_remove import remove_at
from . import walk
from .root import Workspace

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC
_OPEN_MAX = 64  # folders kept open at once (a command may touch 100,000 folders; descriptors are few)
_NO_LINK = (errno.EXDEV, errno.EPERM, errno.EACCES, errno.ENOENT, errno.EMLINK, errno.ENOSYS, errno.EOPNOTSUPP)


class NotAsRecorded(Exception):
    """A recorded change that can no longer land as it was recorded; ``why`` is one plain sentence."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class Ident(NamedTuple):
    """Which file, and whether it changed: inode, size, mtime and ctime (a write or chmod moves the ctime)."""

    dev: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> "Ident":
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _lstat_at(where: Place) -> os.stat_result | None:
    try:
        return os.lstat(where.name, dir_fd=where.dir_fd)
    except FileNotFoundError:
        return None


def _expect(where: Place, before: Ident | None) -> None:
    """The name at ``where`` still holds what the record saw there (``None``: nothing)."""
    st = _lstat_at(where)
    if before is None:
        if st is not None:
            raise NotAsRecorded("something appeared there after the change was recorded")
    elif st is None or Ident.of(st) != before:
        raise NotAsRecorded("it changed after the change was recorded")


class Folders:
    """Folders of one tree, each walked to once (``walk.folder``) and kept open until ``close``: a command
    that changed a thousand files in one folder costs one walk, not a thousand. A folder that could not be
    reached raises the same refusal for every file in it."""

    def __init__(self, ws: Workspace, *, create: bool = False) -> None:
        self.ws, self.create = ws, create
        self._stack = ExitStack()
        self._open: dict[str, int | BaseException] = {}

    def place(self, rel: str) -> Place:
        """``rel`` as a name in its open folder."""
        folder, _, name = rel.rpartition("/")
        fd = self._open.get(folder)
        if fd is None:
            if len(self._open) >= _OPEN_MAX:  # files come folder by folder: the open ones are done with
                self.close()
            try:
                fd = self._stack.enter_context(walk.folder(self.ws, self.ws.root / folder if folder else self.ws.root,
                                                           create=self.create))
            except (OSError, ToolFailure) as exc:
                fd = exc
            self._open[folder] = fd
        if isinstance(fd, BaseException):
            raise fd
        return Place(fd, name)

    def close(self) -> None:
        self._stack.close()
        self._stack = ExitStack()
        self._open.clear()

    def __enter__(self) -> "Folders":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def delete(where: Place, before: Ident | None) -> None:
    """Remove the file or link at ``where`` if it is still the one recorded (gone already is fine)."""
    if _lstat_at(where) is None:
        return
    _expect(where, before)
    os.unlink(where.name, dir_fd=where.dir_fd)


def remove_folder(ws: Workspace, rel: str) -> None:
    """Remove the folder ``rel`` and what is left in it (specials the record skipped), never through a link."""
    with walk.place(ws, ws.root / rel) as where:
        if not remove_at(where.dir_fd, where.name):
            raise NotAsRecorded("the folder could not be removed whole")


def make_folder(ws: Workspace, rel: str, mode: int) -> None:
    with walk.folder(ws, ws.root / rel, create=True) as fd:
        os.fchmod(fd, mode)


def set_mode(ws: Workspace, rel: str, mode: int) -> None:
    with walk.folder(ws, ws.root / rel) as fd:
        os.fchmod(fd, mode)


def put(source: Place, target: Place, after: Ident, digest: str | None, *, link: bool, before: Ident | None) -> None:
    """Make ``target`` hold the upper layer's file at ``source`` as recorded (``after``; a link's target
    text by ``digest``), if ``target`` still holds what the record saw (``before``)."""
    _expect(target, before)
    if link:
        _put_link(source, target, after, digest)
        return
    try:
        fd = os.open(source.name, _READ, dir_fd=source.dir_fd)
    except OSError as exc:
        raise NotAsRecorded(f"the command's version could not be opened ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or Ident.of(st) != after:
            raise NotAsRecorded("the command's version changed after it was recorded")
        tmp = _linked(fd, target)
        if tmp is None:
            tmp = _copied(fd, st, target)
        _land(tmp, target)
    finally:
        os.close(fd)
    os.unlink(source.name, dir_fd=source.dir_fd)  # one name only: the landed file is not a hard link


def _linked(fd: int, target: Place) -> str | None:
    """A new name for the open file beside the target (no path is resolved); None where it cannot be linked."""
    tmp = temp_name(target.name)
    try:
        os.link(f"/proc/self/fd/{fd}", tmp, dst_dir_fd=target.dir_fd, follow_symlinks=True)
    except OSError as exc:
        if exc.errno in _NO_LINK:
            return None
        raise
    return tmp


def _copied(fd: int, st: os.stat_result, target: Place) -> str:
    """The open file's bytes copied beside the target (another filesystem), with its mode and mtime."""
    os.lseek(fd, 0, os.SEEK_SET)
    tmp = stage(Path(target.name), Opened(fd, st.st_size), stat.S_IMODE(st.st_mode), target)
    if Ident.of(os.fstat(fd)) != Ident.of(st):
        discard(tmp, target)
        raise NotAsRecorded("the command's version changed while it was copied")
    os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns), dir_fd=target.dir_fd, follow_symlinks=False)
    return tmp


def _put_link(source: Place, target: Place, after: Ident, digest: str | None) -> None:
    st = _lstat_at(source)
    if st is None or not stat.S_ISLNK(st.st_mode) or (st.st_dev, st.st_ino) != (after.dev, after.ino):
        raise NotAsRecorded("the command's link changed after it was recorded")
    text = os.readlink(os.fsencode(source.name), dir_fd=source.dir_fd)
    if hashlib.sha256(text).hexdigest() != digest:
        raise NotAsRecorded("the command's link changed after it was recorded")
    tmp = temp_name(target.name)
    os.symlink(text, tmp, dir_fd=target.dir_fd)
    _land(tmp, target)


def _land(tmp: str, target: Place) -> None:
    try:
        os.replace(tmp, target.name, src_dir_fd=target.dir_fd, dst_dir_fd=target.dir_fd)
    except BaseException:
        discard(tmp, target)
        raise
