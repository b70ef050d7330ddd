"""Landing file contents on disk atomically, and reading what is there now.

A write goes to a temporary file in the same folder, is given the old file's
permission bits, fsynced, and renamed over the target, so a reader (or a
crash) sees either the old bytes or the new ones, never half of each. The
two halves are separate (``stage`` writes and syncs the temporary file,
``rename`` lands it) so the ledger can stage first — a file that cannot be
written is never recorded — then commit the record, and land only after.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path


def _process_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_DEFAULT_MODE = 0o666 & ~_process_umask()
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


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


def hash_of(path: Path) -> str | None:
    """sha256 of the file's bytes, None when there is no file."""
    data, _ = read(path)
    return None if data is None else hashlib.sha256(data).hexdigest()


def _open_temp(path: Path) -> tuple[int, str]:
    """A new, empty temporary file beside ``path`` (its folder is made when missing)."""
    made_folder = False
    while True:
        tmp = os.path.join(path.parent, f".{path.name}.{os.urandom(6).hex()}.agentdesk")
        try:
            return os.open(tmp, _TEMP_FLAGS, 0o600), tmp
        except FileExistsError:
            continue
        except FileNotFoundError:
            if made_folder:
                raise
            path.parent.mkdir(parents=True, exist_ok=True)
            made_folder = True


def stage(path: Path, content: bytes, mode: int | None = None) -> str:
    """Write ``content`` to a synced temporary file beside ``path``; returns its name for ``rename``."""
    fd, tmp = _open_temp(path)
    try:
        try:
            view = memoryview(content)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, _DEFAULT_MODE if mode is None else mode)
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        discard(tmp)
        raise
    return tmp


def rename(tmp: str, path: Path) -> None:
    """Land a staged file: rename it over ``path`` (the temporary file is removed if that fails)."""
    try:
        os.replace(tmp, path)
    except BaseException:
        discard(tmp)
        raise


def discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass


def land(path: Path, content: bytes | None, mode: int | None = None) -> None:
    """Make ``path`` hold ``content`` (None removes it), atomically."""
    if content is None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        return
    rename(stage(path, content, mode), path)
