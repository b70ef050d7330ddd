"""What a sandboxed command may use: scratch space, processes, memory — and how each is enforced here.

Measured on 2026-12-01 (Linux 6.18, bubblewrap 0.8.0, 2 cores, 24 GB):

- Scratch space: bwrap's ``--size`` (0.8.0 has it; detected from ``bwrap
  --help``) caps each private tmpfs (``/tmp``, ``/var/tmp``, ``/dev/shm``,
  the empty ``$HOME``); a write past it fails with "No space left on
  device". Without ``--size`` the folders are uncapped, and the check says so.
- Processes: ``RLIMIT_NPROC`` counts per real uid, and since Linux 5.14 per
  user namespace. Set *before* bwrap, a limit of 20 with 30 other processes of
  the same uid on the host made bwrap itself fail ("Creating new namespace
  failed"); set *inside* the sandbox (``ulimit -u``, after bwrap made its user
  namespace) the same limit let the command start 18 processes whatever ran
  on the host — a per-sandbox limit without privileges. The kernel never
  applies it to uid 0, though (200 of 200 forks went through as root), so
  for root the command goes into a pids cgroup of its own (``pids.max``), a
  sibling of this process's cgroup, removed when the command ends. With
  neither (root without a writable pids cgroup, or a kernel before 5.14) the
  process limit is not enforced and the check says so. Threads count too.
- Memory: ``RLIMIT_DATA`` per process (``ulimit -d``), which also binds root.
  ``RLIMIT_AS`` was the first choice but any value under 16 GiB broke Node's
  WebAssembly (it reserves ~10 GiB of address space up front, with no memory
  behind it); ``RLIMIT_DATA`` counts only private writable memory, so Node,
  Java and Python start, and ``python3 -c 'bytearray(3 << 30)'`` fails with
  MemoryError under a 2 GiB limit. Shared memory is bounded by ``/dev/shm``'s
  size. A memory cgroup would bound the whole tree but needs privileges.

The limits are plain data here; ``shell_tool`` is given them.
"""

from __future__ import annotations

import itertools
import os
import platform
import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..core.errors import ConfigError

_MIB = 1024 * 1024
_NAMES = itertools.count()
_LIVE: set[str] = set()  # this process's groups in use: a sweep for another command leaves them alone
_LIVE_LOCK = threading.Lock()


@dataclass(frozen=True)
class SandboxLimits:
    """Bounds of one command. Each scratch tmpfs is capped at ``tmp_mb`` (so /tmp, /var/tmp,
    /dev/shm and $HOME together hold at most four times that)."""

    tmp_mb: int = 512
    max_processes: int = 1024   # processes and threads of the command, together
    memory_mb: int = 4096       # private writable memory of each process

    def __post_init__(self) -> None:
        for name, low, high in (("tmp_mb", 1, 1 << 20), ("max_processes", 8, 1 << 22), ("memory_mb", 16, 1 << 30)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ConfigError(f"sandbox limit {name} must be a whole number from {low} to {high}", name)

    @property
    def tmp_bytes(self) -> int:
        return self.tmp_mb * _MIB

    def ulimits(self, *, processes: bool) -> str:
        """The ``ulimit`` line run inside the sandbox, before the command."""
        kib = self.memory_mb * 1024
        line = f"ulimit -S -H -d {kib}"
        return f"{line} -u {self.max_processes}" if processes else line


@dataclass(frozen=True)
class LimitSupport:
    """How the limits are enforced here (found once, when the sandbox is checked)."""

    tmp_size: bool                      # bwrap --size
    processes: str                      # "rlimit", "cgroup", or "" (not enforced)
    cgroup_base: Path | None = None     # where per-command pids cgroups go
    note: str = ""                      # what is not enforced, and why

    @property
    def notes(self) -> tuple[str, ...]:
        return (self.note,) if self.note else ()


def detect(bwrap_help: str, *, euid: int | None = None, release: str | None = None,
           proc_self: Path = Path("/proc/self")) -> LimitSupport:
    """Which limits can be enforced on this machine, for this user."""
    euid = os.geteuid() if euid is None else euid
    tmp_size = "--size" in bwrap_help
    missing = [] if tmp_size else ["the size of /tmp (this bubblewrap has no --size)"]
    processes, base = "", None
    if euid != 0:
        if _kernel_at_least(release or platform.release(), (5, 14)):
            processes = "rlimit"
        else:
            missing.append("the number of processes (RLIMIT_NPROC counts per user before Linux 5.14)")
    else:
        base = pids_cgroup_base(proc_self)
        if base is not None:
            processes = "cgroup"
        else:
            missing.append("the number of processes (running as root, with no writable pids cgroup)")
    note = ("Not enforced here: " + "; ".join(missing) + ".") if missing else ""
    return LimitSupport(tmp_size, processes, base, note)


def _kernel_at_least(release: str, wanted: tuple[int, int]) -> bool:
    match = re.match(r"(\d+)\.(\d+)", release)
    return match is not None and (int(match.group(1)), int(match.group(2))) >= wanted


def pids_cgroup_base(proc_self: Path = Path("/proc/self")) -> Path | None:
    """The writable cgroup folder under which a pids-limited child can be made, or None.

    cgroup v1: this process's cgroup in the ``pids`` hierarchy. cgroup v2: this
    process's cgroup when ``pids`` is already enabled for its children (v2
    forbids enabling it where processes live, and the host's tree is not ours
    to rearrange).
    """
    try:
        groups = (proc_self / "cgroup").read_text().splitlines()
        mounts = (proc_self / "mountinfo").read_text().splitlines()
    except OSError:
        return None
    v1 = {line.split(":", 2)[2] for line in groups if "pids" in line.split(":", 2)[1].split(",")}
    v2 = {line.split(":", 2)[2] for line in groups if line.startswith("0::")}
    for mount in mounts:
        fields = mount.split(" - ", 1)
        if len(fields) != 2:
            continue
        head, tail = fields[0].split(), fields[1].split()
        if len(head) < 5 or len(tail) < 3:
            continue
        mount_root, point, fstype, options = head[3], head[4], tail[0], tail[2].split(",")
        if fstype == "cgroup" and "pids" in options and v1:
            base = _under(point, mount_root, next(iter(v1)))
        elif fstype == "cgroup2" and v2:
            base = _under(point, mount_root, next(iter(v2)))
            if base is not None and not _v2_pids(base):
                base = None
        else:
            continue
        if base is not None and os.access(base, os.W_OK):
            return base
    return None


def _under(point: str, mount_root: str, group: str) -> Path | None:
    rel = os.path.relpath(group, mount_root) if mount_root != "/" else group.lstrip("/")
    if rel.startswith(".."):
        return None
    base = Path(point) / rel if rel not in ("", ".") else Path(point)
    return base if base.is_dir() else None


def _v2_pids(base: Path) -> bool:
    """True when children of ``base`` get the pids controller (never switched on from here)."""
    try:
        return "pids" in (base / "cgroup.subtree_control").read_text().split()
    except OSError:
        return False


@contextmanager
def pids_cgroup(base: Path, max_processes: int) -> Iterator[Path]:
    """A fresh cgroup under ``base`` capped at ``max_processes``; yields its ``cgroup.procs`` path.

    Removed on exit. shell_exec waits for the sandbox's init to exit first,
    and then ``rmdir`` worked at once for 30 of 30 commands; a caller that
    waits only for bwrap saw it refused for 39 of 40 (the last processes were
    still on their way out). So each new group first sweeps the empty ones
    left by this process or by processes that are gone.
    """
    _sweep(base)
    group = base / f"agentdesk-{os.getpid()}-{next(_NAMES)}"
    with _LIVE_LOCK:
        _LIVE.add(group.name)
    try:
        group.mkdir(mode=0o755)
        try:
            (group / "pids.max").write_text(str(max_processes))
            yield group / "cgroup.procs"
        finally:
            _remove(group)
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(group.name)


def _sweep(base: Path) -> None:
    try:
        names = [entry.name for entry in os.scandir(base) if entry.name.startswith("agentdesk-")]
    except OSError:
        return
    with _LIVE_LOCK:
        live = set(_LIVE)
    for name in names:
        if name in live:
            continue  # another command of this kernel is still starting in it
        match = re.fullmatch(r"agentdesk-(\d+)-\d+", name)
        if match is None:
            continue
        owner = int(match.group(1))
        if owner != os.getpid():
            try:
                os.kill(owner, 0)
                continue  # another live kernel's group
            except ProcessLookupError:
                pass
            except OSError:
                continue
        try:
            (base / name).rmdir()
        except OSError:
            pass


def _remove(group: Path) -> None:
    for _attempt in range(3):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            try:
                for pid in (group / "cgroup.procs").read_text().split():
                    os.kill(int(pid), 9)
            except (OSError, ValueError):
                pass
