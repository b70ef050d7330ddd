"""Landing file contents on disk atomically, and reading what is there now.

A write goes to a temporary file in the same folder, is given the old file's
permission bits, fsynced, and renamed over the target, so a reader (or a
crash) sees either the old bytes or the new ones, never half of each. The
two halves are separate (``stage`` writes and syncs the temporary file,
``rename`` lands it) so the ledger can stage first — a file that cannot be
written is never recorded — then commit the record, and land only after.

A ``Place`` is a name inside a folder the caller holds open: every step
(stage, rename, unlink, read) then goes through that descriptor
(``dir_fd``), never through a path, so a folder swapped for a link while the
change is in flight cannot redirect it (the file tools walk to the folder
without following links). Without a place, the path is used, as undo does.

Temporary files are named ``.NAME.<12 hex>.agentdesk``; ``is_temp_name``
tells them apart so a sweep can remove the ones a killed process left.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from .blobs import Opened, chunks_of, digest_fd


def _process_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_DEFAULT_MODE = 0o666 & ~_process_umask()
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
_TEMP_NAME = re.compile(r"\..+\.[0-9a-f]{12}\.agentdesk", re.DOTALL)


@dataclass(frozen=True)
class Place:
    """The file ``name`` inside the folder open as ``dir_fd`` (the caller keeps it open)."""

    dir_fd: int
    name: str


def temp_name(name: str) -> str:
    """A fresh temporary name for staging a file called ``name``."""
    return f".{name}.{os.urandom(6).hex()}.agentdesk"


def is_temp_name(name: str) -> bool:
    """True for a name ``temp_name`` makes: a staged file, never a user's."""
    return _TEMP_NAME.fullmatch(name) is not None


def absolute(path: str | os.PathLike[str]) -> Path:
    """The absolute path with every folder resolved, keeping the last component as named."""
    p = Path(path)
    if not p.is_absolute():
        p = Path.cwd() / p
    return p.parent.resolve() / p.name


def read(path: Path) -> tuple[bytes | None, int | None]:
    """The file's bytes and permission bits, or (None, None) when there is no file."""
    try:
        with open(path, "rb") as fh:
            mode = stat.S_IMODE(os.fstat(fh.fileno()).st_mode)
            return fh.read(), mode
    except FileNotFoundError:
        return None, None


def open_at(place: Place) -> tuple[int, os.stat_result] | None:
    """The file at ``place`` open for reading (not following a link) and its stat; None when there
    is no file. The caller closes the descriptor."""
    try:
        fd = os.open(place.name, _READ_FLAGS, dir_fd=place.dir_fd)
    except FileNotFoundError:
        return None
    try:
        return fd, os.fstat(fd)
    except BaseException:
        os.close(fd)
        raise


def mode_of(path: Path) -> int | None:
    """The file's permission bits, None when there is no file."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None


NOT_A_FILE = "not a regular file"  # never a sha256: whatever sits there now is a conflict for undo


def hash_of(path: Path) -> str | None:
    """sha256 of the file's bytes (read in chunks), None when there is no file. A link, pipe or
    device left in the file's place is not followed or read (a pipe would block undo for good):
    it is ``NOT_A_FILE``, which matches no recorded contents."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # a link (O_NOFOLLOW)
            return NOT_A_FILE
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return NOT_A_FILE
        return digest_fd(fd)
    finally:
        os.close(fd)


def link_or_file_hash(path: Path) -> str | None:
    """Like ``hash_of``, but a symbolic link is hashed by its target's text (never followed)."""
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            return hashlib.sha256(os.fsencode(os.readlink(path))).hexdigest()
    except FileNotFoundError:
        return None
    return hash_of(path)


def land_link(path: Path, target: bytes) -> None:
    """Make ``path`` a symbolic link to ``target``, atomically (a link beside it, renamed over it)."""
    tmp = path.parent / temp_name(path.name)
    os.symlink(target, tmp)
    rename(str(tmp), path)


def _open_temp(path: Path, place: Place | None) -> tuple[int, str]:
    """A new, empty temporary file beside ``path`` (its folder is made when missing; a place's
    folder is open, so it exists)."""
    made_folder = False
    while True:
        name = temp_name(path.name if place is None else place.name)
        try:
            if place is not None:
                return os.open(name, _TEMP_FLAGS, 0o600, dir_fd=place.dir_fd), name
            tmp = os.path.join(path.parent, name)
            return os.open(tmp, _TEMP_FLAGS, 0o600), tmp
        except FileExistsError:
            continue
        except FileNotFoundError:
            if made_folder or place is not None:
                raise
            path.parent.mkdir(parents=True, exist_ok=True)
            made_folder = True


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def stage(path: Path, content: bytes | Opened, mode: int | None = None, place: Place | None = None) -> str:
    """Write ``content`` (bytes, or an open file copied in chunks) to a synced temporary file beside
    ``path`` (in ``place``'s folder, when given); returns its name for ``rename``."""
    fd, tmp = _open_temp(path, place)
    try:
        try:
            if isinstance(content, Opened):
                for chunk in chunks_of(content.fd):
                    _write_all(fd, chunk)
            else:
                _write_all(fd, content)
            os.fchmod(fd, _DEFAULT_MODE if mode is None else mode)
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        discard(tmp, place)
        raise
    return tmp


def rename(tmp: str, path: Path, place: Place | None = None) -> None:
    """Land a staged file: rename it over ``path`` (the temporary file is removed if that fails)."""
    try:
        if place is None:
            os.replace(tmp, path)
        else:
            os.replace(tmp, place.name, src_dir_fd=place.dir_fd, dst_dir_fd=place.dir_fd)
    except BaseException:
        discard(tmp, place)
        raise


def discard(tmp: str, place: Place | None = None) -> None:
    try:
        os.unlink(tmp, dir_fd=None if place is None else place.dir_fd)
    except FileNotFoundError:
        pass


def land(path: Path, content: bytes | Opened | None, mode: int | None = None, place: Place | None = None) -> None:
    """Make ``path`` hold ``content`` (None removes it), atomically."""
    if content is None:
        try:
            if place is None:
                os.unlink(path)
            else:
                os.unlink(place.name, dir_fd=place.dir_fd)
        except FileNotFoundError:
            pass
        return
    rename(stage(path, content, mode, place), path, place)
