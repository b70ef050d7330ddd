"""Landing file contents on disk atomically, and reading what is there now.

A write goes to a temporary file in the same folder, is fsynced, given the
old file's permission bits, and renamed over the target, so a reader (or a
crash) sees either the old bytes or the new ones, never half of each.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path


def _process_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_DEFAULT_MODE = 0o666 & ~_process_umask()


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


def land(path: Path, content: bytes | None, mode: int | None = None) -> None:
    """Make ``path`` hold ``content`` (None removes it), atomically."""
    if content is None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".agentdesk")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
            fh.flush()
            os.fsync(fh.fileno())
            os.fchmod(fh.fileno(), _DEFAULT_MODE if mode is None else mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
